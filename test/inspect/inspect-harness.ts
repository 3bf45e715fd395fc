import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import type { SourceStore } from '../../src/persistence/index.js';
import { defineTool, type Tool } from '../../src/tools/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';

/** A model whose every answer waits for `release()`: the turn stays in `generate` until then. */
export function gatedModel(answer = (request: ModelRequest) => callReply(`re: ${lastUserText(request)}`)) {
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const model = new ScriptedModel(
    [
      async (request: ModelRequest) => {
        await gate;
        return answer(request);
      },
    ],
    { repeatLast: true },
  );
  return {
    model,
    /** Lets the waiting model call (and every later one) answer. */
    release: () => open(),
    /** Closes the gate again for the next turn. */
    close: () => (gate = new Promise<void>((resolve) => (open = resolve))),
  };
}

function lastUserText(request: ModelRequest): string {
  const entry = request.history.findLast((candidate) => candidate.role === 'user');
  return entry?.role === 'user' ? entry.text : '';
}

/** kaiwa in local emulator mode (the inspector is on), with the given model and environment. */
export function startEmulatorKaiwa(options: {
  model: ScriptedModel;
  env?: Record<string, string>;
  store?: SourceStore;
  tools?: readonly Tool[];
}): Promise<KaiwaRuntime> {
  const config = loadConfig({ PORT: '0', STORE: 'memory', ...options.env });
  return startKaiwa(config, {
    model: options.model,
    logger: silentLogger,
    ...(options.store && { store: options.store }),
    ...(options.tools && { tools: options.tools }),
  });
}

/** A tool that runs until `release()`: the turn stays in `toolCall.running` with it pending. */
export function gatedTool(name = 'slow_lookup') {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const tool = defineTool({
    name,
    description: 'Looks something up, slowly.',
    category: 'test',
    optional: false,
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    response: { type: 'object', properties: { found: { type: 'string' } }, required: ['found'] },
    timeoutMs: 30_000,
  }).implement(async (args) => {
    await gate;
    return { forLLM: { found: `facts about ${args.query}` } };
  });
  return { tool, release: () => open() };
}

/** Types a message in the emulator, as the chat page does. */
export async function sayInEmulator(
  url: string,
  text: string,
  chat: { kind: 'user' | 'group' | 'room'; name: string } = { kind: 'user', name: 'Aiko' },
  userName = 'Aiko',
) {
  const response = await fetch(`${url}/emulator/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat, userName, text }),
  });
  return (await response.json()) as { webhookStatus: number };
}

export async function emulatorChatId(url: string, kind: string, name: string): Promise<string> {
  const response = await fetch(`${url}/emulator/api/chat-id?kind=${kind}&name=${encodeURIComponent(name)}`);
  return ((await response.json()) as { id: string }).id;
}

export { until } from '../support/until.js';
