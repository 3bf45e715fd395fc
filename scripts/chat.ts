// `npm run chat`: talk to kaiwa from the terminal as a LINE user, or as several users in a group
// or room. It goes the webhook's way: it posts to the emulator's /emulator/api/messages (which
// signs and sends a real webhook) and prints the bot's answers from the transcript stream.
// It connects to a local kaiwa already running in emulator mode, or starts one in this process.
//
//   npm run chat                                          1:1 as "You"
//   npm run chat -- --user Aiko                           1:1 as Aiko
//   npm run chat -- --group "Weekend trip" --users Aiko,Ken,Mei
//   npm run chat -- --room Lunch --users Aiko,Ken
//   npm run chat -- --url http://127.0.0.1:3000           only connect, never start
import { parseArgs } from 'node:util';
import readline from 'node:readline';
import { ConfigError, loadConfig } from '../src/config/index.js';
import type { TranscriptEntry } from '../src/line/emulator/line-emulator.js';
import { createLogger, LOG_LEVELS, type LogLevel } from '../src/logging/index.js';
import { startKaiwa, type KaiwaRuntime } from '../src/server/kaiwa-runtime.js';

const HELP = `Type a message and press Enter. Commands:
  /as NAME     speak as NAME (in a group or room)
  NAME: text   say one message as NAME (a member of the group or room)
  /users       the members
  /quit        leave (Ctrl+D too)`;

interface Chat {
  readonly kind: 'user' | 'group' | 'room';
  readonly name: string;
}

function fail(message: string): never {
  process.stderr.write(`chat: ${message}\n`);
  process.exit(1);
}

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    user: { type: 'string' },
    group: { type: 'string' },
    room: { type: 'string' },
    users: { type: 'string' },
    wait: { type: 'string', default: '15000' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(
    `npm run chat -- [--user NAME | --group NAME | --room NAME] [--users A,B,C] [--url URL]\n${HELP}\n`,
  );
  process.exit(0);
}
if (args.group && args.room) fail('choose --group or --room, not both');
const members = (args.users ?? args.user ?? 'You')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const chat: Chat = args.group
  ? { kind: 'group', name: args.group }
  : args.room
    ? { kind: 'room', name: args.room }
    : { kind: 'user', name: members[0] ?? 'You' };
let speaker = members[0] ?? 'You';

/** A kaiwa to talk to: the one at `--url` (or the local port), else one started here. */
async function connect(): Promise<{ url: string; runtime?: KaiwaRuntime }> {
  const port = process.env.PORT ?? '3000';
  const candidate = args.url ?? (port === '0' ? undefined : `http://127.0.0.1:${port}`);
  if (candidate) {
    const health = await fetch(`${candidate}/healthz`, { signal: AbortSignal.timeout(1500) }).then(
      async (response) => (response.ok ? ((await response.json()) as { line?: string }) : undefined),
      () => undefined,
    );
    if (health?.line === 'emulator') return { url: candidate.replace(/\/+$/, '') };
    if (health) fail(`${candidate} is kaiwa with a real LINE channel; the terminal chat needs the emulator`);
    if (args.url) fail(`nothing answers at ${args.url}`);
  }
  let config;
  try {
    config = loadConfig(process.env, { store: 'sqlite' });
  } catch (error) {
    fail(ConfigError.isInstance(error) ? error.message : String(error));
  }
  if (config.line.mode !== 'emulator')
    fail('unset LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN: the chat plays LINE');
  // The REPL owns stdout: the runtime logs warnings and errors to stderr unless LOG_LEVEL says otherwise.
  const level = (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL ?? '')
    ? (process.env.LOG_LEVEL as LogLevel)
    : 'warn';
  const logger = createLogger({ level, write: (line) => process.stderr.write(`${line}\n`) });
  const runtime = await startKaiwa(config, { logger });
  return { url: runtime.url, runtime };
}

/**
 * Opens the emulator's transcript (server-sent events). The server subscribes before it answers,
 * so once this resolves no entry is missed.
 */
async function openTranscript(url: string, signal: AbortSignal): Promise<Response> {
  const response = await fetch(`${url}/emulator/api/stream`, { signal });
  if (!response.body) throw new Error('the transcript stream has no body');
  return response;
}

/** Hands over the transcript's entries as they come. */
async function follow(response: Response, onEntry: (entry: TranscriptEntry) => void) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (data) onEntry(JSON.parse(data) as TranscriptEntry);
    }
  }
}

async function main() {
  const { url, runtime } = await connect();
  const idResponse = await fetch(
    `${url}/emulator/api/chat-id?kind=${chat.kind}&name=${encodeURIComponent(chat.name)}`,
  );
  const { id: chatId } = (await idResponse.json()) as { id: string };
  // Before reading stdin: a line read while this waited would have no listener yet.
  const stream = new AbortController();
  const transcript = await openTranscript(url, stream.signal);
  const interactive = process.stdin.isTTY && process.stdout.isTTY;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
  });
  const setPrompt = () => rl.setPrompt(`${speaker} › `);
  const print = (line: string) => {
    if (interactive) {
      readline.clearLine(process.stdout, 0);
      readline.cursorTo(process.stdout, 0);
    }
    process.stdout.write(`${line}\n`);
    if (interactive) rl.prompt(true);
  };

  const title =
    chat.kind === 'user'
      ? `1:1 with the bot as ${speaker}`
      : `${chat.kind} "${chat.name}" with ${members.join(', ')}`;
  print(`kaiwa terminal chat · ${title} · ${url}${runtime ? ' (started here)' : ''}`);
  print(`inspect it at ${url}/inspect · /help for commands`);

  const names = new Map<string, string>();
  // The stream shows a line of ours before its POST returns: it is ours when it matches one sent.
  const unseen = new Map<string, number>();
  const ours = (userName: string | undefined, text: string) => `${userName ?? ''}\u0000${text}`;
  let sent = 0;
  let answers = 0;
  follow(transcript, (entry) => {
    if (entry.chatId !== chatId) return;
    if (entry.from === 'user' && entry.userName) names.set(entry.id, entry.userName);
    if (entry.from === 'user') {
      const key = ours(entry.userName, entry.text);
      const pending = unseen.get(key) ?? 0;
      if (pending > 0) {
        unseen.set(key, pending - 1);
        // A terminal echoes what was typed; piped input is shown as the transcript has it.
        if (!interactive) print(`${entry.userName ?? 'you'} › ${entry.text}`);
      } else print(`${entry.userName ?? 'someone'} (elsewhere) › ${entry.text}`);
    }
    if (entry.from === 'bot') {
      answers++;
      const to = entry.quotedId && names.get(entry.quotedId);
      print(`kaiwa${to ? ` (to ${to})` : ''}${entry.via === 'push' ? ' [push]' : ''} › ${entry.text}`);
    }
    if (entry.from === 'system') print(`! ${entry.text}`);
  }).catch((error: unknown) => {
    if (!stream.signal.aborted)
      print(`! transcript stream lost: ${error instanceof Error ? error.message : String(error)}`);
  });

  const send = async (userName: string, text: string) => {
    sent++;
    const key = ours(userName, text);
    unseen.set(key, (unseen.get(key) ?? 0) + 1);
    const response = await fetch(`${url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat, userName, text }),
    });
    const body = (await response.json()) as {
      entry?: TranscriptEntry;
      webhookStatus?: number;
      message?: string;
    };
    if (!response.ok) print(`! ${body.message ?? response.status}`);
    else if (body.webhookStatus !== 200) print(`! the webhook answered ${body.webhookStatus}`);
  };

  let queue = Promise.resolve();
  rl.on('line', (input) => {
    const line = input.trim();
    queue = queue.then(async () => {
      if (line === '') return;
      if (line === '/quit' || line === '/exit') return void rl.close();
      if (line === '/help') return print(HELP);
      if (line === '/users') return print(members.join(', '));
      const as = /^\/as\s+(.+)$/.exec(line);
      if (as?.[1]) {
        speaker = as[1].trim();
        if (!members.includes(speaker)) members.push(speaker);
        setPrompt();
        return;
      }
      const named = /^([^:]{1,40}):\s*(.+)$/.exec(line);
      if (chat.kind !== 'user' && named?.[1] && named[2] && members.includes(named[1].trim())) {
        return send(named[1].trim(), named[2]);
      }
      return send(speaker, line);
    });
    void queue.then(() => interactive && rl.prompt());
  });
  setPrompt();
  if (interactive) rl.prompt();

  await new Promise<void>((resolve) => rl.once('close', resolve));
  await queue;
  // Piped input ends at once: give every message its answer (or give up after --wait ms).
  const deadline = Date.now() + Number(args.wait);
  while (answers < sent && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  stream.abort();
  await runtime?.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
);
