import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { tsxScriptArguments } from './npm-script.js';

const root = path.resolve(import.meta.dirname, '../..');
/** What `npm start` runs after `tsx`: Node.js flags, then the entry file. */
const startArguments = tsxScriptArguments('start');

/**
 * `npm start` as its own process (the entry file through tsx, as the script runs it), on a
 * port of its own that it keeps across restarts, with only the environment it is given.
 * `kill()` is a SIGKILL: nothing of the process gets to run after it.
 */
export class KaiwaProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<unknown> | undefined;
  /** How many times it was started (the current incarnation's number, from 1). */
  incarnation = 0;
  /** The last lines it wrote, for a failing test's message. */
  private readonly tail: string[] = [];
  /** Every line every incarnation wrote, prefixed with the incarnation (`B#3 {...}`). */
  readonly lines: string[] = [];
  /** Set by `dispose()`: no start after it, and one under way ends quietly instead of failing. */
  disposed = false;

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: (incarnation: number) => Record<string, string>,
  ) {}

  /** `env` is asked again at every start (a new incarnation may get a new access token). */
  static async create(
    name: string,
    env: (incarnation: number) => Record<string, string>,
  ): Promise<KaiwaProcess> {
    return new KaiwaProcess(name, await freePort(), env);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The current incarnation's name, such as `A#3`. */
  get instance(): string {
    return `${this.name}#${this.incarnation}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts it and resolves once `/healthz` answers; rejects when it exits first. */
  async start(timeoutMs = 45_000): Promise<void> {
    if (this.disposed) return;
    this.incarnation++;
    const child = spawn(process.execPath, ['--import', 'tsx', ...startArguments], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: String(this.port),
        HOST: '127.0.0.1',
        ...this.env(this.incarnation),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = once(child, 'exit');
    const instance = this.instance;
    const keep = (line: string) => {
      this.lines.push(`${instance} ${line}`);
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
    };
    createInterface({ input: child.stdout }).on('line', keep);
    createInterface({ input: child.stderr }).on('line', keep);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.disposed) return;
      if (child.exitCode !== null || child.signalCode !== null) {
        this.child = undefined;
        throw new Error(`${this.instance} exited while starting:\n${this.output()}`);
      }
      try {
        const health = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
        if (health.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.instance} did not start:\n${this.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGKILL, and waits until the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
  }

  /**
   * SIGTERM, as a deploy or `docker stop` sends it, and waits until the process has exited by
   * itself (turns in progress finish first); `false` when it is still there after `timeoutMs`
   * (then it is SIGKILLed).
   */
  async terminate(timeoutMs = 30_000): Promise<boolean> {
    const child = this.child;
    if (!child) return true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const exited = await Promise.race([
      this.exited!.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
    ]);
    if (!exited) await this.kill();
    this.child = undefined;
    return exited;
  }

  /** SIGSTOP for `ms`, then SIGCONT: the whole process frozen, as a stalled VM or a long GC. */
  async freeze(ms: number): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, ms));
    child.kill('SIGCONT');
  }

  /** The test is over (or timed out): SIGKILL, and no start under way fails because of it. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.kill();
  }

  output(): string {
    return this.tail.join('\n');
  }
}

/**
 * A port nobody listens on, below Linux's ephemeral range (32768–60999): the process keeps it
 * across restarts, so no outgoing connection may take it meanwhile.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!listening) continue;
    server.close();
    await once(server, 'close');
    return port;
  }
}

/** The JSON log lines of these processes at one level (`B#3 {"level":"error",...}`). */
export function loggedAt(level: string, processes: readonly KaiwaProcess[]): string[] {
  return processes.flatMap((process) => process.lines).filter((line) => line.includes(`"level":"${level}"`));
}

/**
 * The environment of `npm start` against the fake LINE and a fake Gemini, for each incarnation
 * of the process called `name` (what `KaiwaProcess.create` asks for): its LINE calls carry an
 * access token of that name (the fake LINE records which process sent what). `store` adds the
 * store's settings.
 */
export function fakeServicesEnv(
  services: {
    line: { url: string; emulator: { botUserId: string }; accessTokenFor(name: string): string };
    gemini: { baseUrl: string };
    channelSecret: string;
    replyTokenTtlMs: number;
  },
  name: string,
  store: Record<string, string>,
): (incarnation: number) => Record<string, string> {
  const { line } = services;
  return (incarnation) => ({
    LINE_CHANNEL_SECRET: services.channelSecret,
    LINE_CHANNEL_ACCESS_TOKEN: line.accessTokenFor(`${name}#${incarnation}`),
    LINE_API_BASE_URL: line.url,
    LINE_DATA_API_BASE_URL: line.url,
    LINE_BOT_USER_ID: line.emulator.botUserId,
    GEMINI_API_KEY: 'test-key',
    GEMINI_BASE_URL: services.gemini.baseUrl,
    KAIWA_REPLY_TOKEN_TTL_MS: String(services.replyTokenTtlMs),
    LOG_LEVEL: 'info',
    ...store,
  });
}
