import { afterEach, describe, expect, it } from 'vitest';
import { botInfoLookup } from '../../src/line/bot-identity.js';
import { LineDirectory } from '../../src/line/line-directory.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { LoadingAnimation } from '../../src/line/loading-animation.js';
import { createMessagingApiClient } from '../../src/line/sdk-http-client.js';
import { createLogger } from '../../src/logging/index.js';
import { startHostileServer } from '../support/hostile-http-server.js';
import { until } from '../support/until.js';

// Every LINE call has a timeout and the turn's abort signal (docs/line.md): the calls outside the
// delivery — the bot's identity, profile lookups, the loading animation — against a LINE that
// never answers.
const USER = 'U' + '4'.repeat(32);
let server: Awaited<ReturnType<typeof startHostileServer>> | undefined;
let logLines: Record<string, unknown>[] = [];
const logger = createLogger({ level: 'debug', write: (line) => logLines.push(JSON.parse(line) as never) });

afterEach(async () => {
  await server?.close();
  server = undefined;
  logLines = [];
});

async function silentLine() {
  server = await startHostileServer(() => ({ kind: 'hang' }));
  return server;
}

describe('LINE calls outside the delivery are bounded', () => {
  it("the bot's identity lookup ends at its timeout, with the operation logged", async () => {
    const line = await silentLine();
    const lookup = botInfoLookup(
      { channelAccessToken: 'token', apiBaseUrl: line.url },
      { logger, timeoutMs: 200 },
    );

    await expect(lookup()).rejects.toMatchObject({ name: 'LineRequestError', reason: 'timeout' });
    expect(logLines).toContainEqual(
      expect.objectContaining({ operation: 'GET /v2/bot/info', reason: 'timeout' }),
    );
  }, 3_000);

  it("a profile lookup ends as soon as the turn's signal aborts, leaving the message as it was", async () => {
    const line = await silentLine();
    const transport = new LineTransport({ logger, timeoutMs: 60_000 });
    const client = createMessagingApiClient(transport, { channelAccessToken: 'token', baseURL: line.url });
    const directory = new LineDirectory({ client, clock: { now: () => Date.now() }, logger });
    const turn = new AbortController();
    const message = {
      eventId: 'e1',
      source: { kind: 'user' as const, id: USER },
      timestamp: Date.now(),
      text: 'hi',
      sender: { userId: USER },
    };

    const enriched = directory.enrich(message, new Map(), turn.signal);
    await until(() => line.requests.length === 1);
    turn.abort(new Error('the source was lost'));

    expect((await enriched).sender).toMatchObject({ userId: USER });
    expect(logLines).toContainEqual(expect.objectContaining({ level: 'debug', reason: 'aborted' }));
  }, 3_000);

  it('a loading animation call still running when its turn ends is aborted', async () => {
    const line = await silentLine();
    const transport = new LineTransport({ logger, timeoutMs: 60_000 });
    const client = createMessagingApiClient(transport, { channelAccessToken: 'token', baseURL: line.url });
    const loading = new LoadingAnimation({ client, logger, delayMs: 0, seconds: 5 });
    const source = { kind: 'user' as const, id: USER };

    loading.turnStarted(source);
    await until(() => line.requests.length === 1);
    loading.turnEnded(source);

    await until(() =>
      logLines.some(
        (entry) => entry.operation === 'POST /v2/bot/chat/loading/start' && entry.reason === 'aborted',
      ),
    );
    expect(logLines.filter((entry) => entry.level === 'warn')).toEqual([]);
  }, 3_000);
});
