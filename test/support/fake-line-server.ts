import express from 'express';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LineEmulator } from '../../src/line/emulator/line-emulator.js';
import { lineApiRouter } from '../../src/line/emulator/line-api-router.js';
import { LineSchemas } from '../../src/line/openapi/line-schemas.js';
import { silentLogger } from '../../src/logging/index.js';
import type { Clock } from '../../src/domain/index.js';

export interface RecordedLineRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
  /** What LINE's schema says about the body: empty when valid. */
  readonly schemaProblems: string[];
  /** When it arrived (ms since the epoch). */
  readonly time: number;
  /** The name of the access token it carried (see `accessTokenFor`), when not the channel's own. */
  readonly sender?: string;
  /** The status the fake answered, once it answered. */
  status?: number;
}

/** How LINE spells a retry key: a UUID in hexadecimal (messaging-api.yml, `X-Line-Retry-Key`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A local HTTP server posing as LINE's Messaging API: the emulator's rules (single-use,
 * expiring reply tokens; 409 for a repeated retry key) and LINE's schemas, recording
 * every request so tests can assert on exactly what the bot sent. Like LINE, every answer
 * carries `x-line-request-id`, a 409 names the request that took the retry key in
 * `x-line-accepted-request-id`, and a retry key that is not a UUID is a 400.
 */
export async function startFakeLine(
  options: {
    clock?: Clock;
    /**
     * A reply token stops working this long after it was issued (LINE: about a minute, the
     * emulator's 60 s). Shorter makes a crash test meet expired tokens within its bounds.
     */
    replyTokenLifetimeMs?: number;
    /**
     * How long LINE takes to answer a reply or a push (ms), asked per request. The message is
     * delivered when the request arrives: a bot that dies meanwhile never learns it was.
     */
    messageLatencyMs?: () => number;
  } = {},
) {
  const schemas = await LineSchemas.load();
  const clock = options.clock ?? { now: () => Date.now() };
  const emulator = new LineEmulator(clock);
  const requests: RecordedLineRequest[] = [];
  /** When and for which chat each reply token was issued. */
  const issuedTokens = new Map<string, { chatId: string; issuedAt: number }>();
  const issueReplyToken = emulator.issueReplyToken.bind(emulator);
  emulator.issueReplyToken = (chatId: string) => {
    const token = issueReplyToken(chatId);
    issuedTokens.set(token, { chatId, issuedAt: clock.now() });
    return token;
  };
  /** The request id that first used each retry key, for LINE's `x-line-accepted-request-id`. */
  const acceptedRetryKeys = new Map<string, string>();
  /** More access tokens of the channel (LINE allows several), by the name of who uses them. */
  const accessTokens = new Map<string, string>();
  /** Scripted failures: the next `times` requests to `path` answer `status` with `body`. */
  const failures: { path: string; status: number; body: Record<string, unknown>; times: number }[] = [];
  const validate = (method: string, path: string, body: unknown) => {
    const result = schemas.validateRequest(method, path, body);
    return result.ok ? [] : result.errors;
  };
  const app = express();
  app.use(express.json({ limit: '2mb' }), (request, response, next) => {
    const sender = accessTokens.get(request.get('authorization') ?? '');
    // The channel's other tokens are as good as its first: the emulator knows only that one.
    if (sender !== undefined) request.headers.authorization = `Bearer ${emulator.channelAccessToken}`;
    const recorded: RecordedLineRequest = {
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body as unknown,
      schemaProblems: validate(request.method, request.path, request.body),
      time: clock.now(),
      ...(sender !== undefined && { sender }),
    };
    requests.push(recorded);
    const requestId = randomUUID();
    response.set('x-line-request-id', requestId);
    // What LINE decided is recorded when it decides: the bot may die before the answer reaches it.
    const answer = response.json.bind(response);
    const delayMs = request.path.startsWith('/v2/bot/message/') ? (options.messageLatencyMs?.() ?? 0) : 0;
    response.json = (body: unknown) => {
      recorded.status = response.statusCode;
      const retryKey = request.get('x-line-retry-key');
      if (retryKey !== undefined && response.statusCode === 200) acceptedRetryKeys.set(retryKey, requestId);
      if (delayMs > 0) setTimeout(() => answer(body), delayMs);
      else answer(body);
      return response;
    };
    next();
  });
  app.use((request, response, next) => {
    const retryKey = request.get('x-line-retry-key');
    if (retryKey !== undefined && !UUID.test(retryKey)) {
      response.status(400).json({ message: "The value for the 'X-Line-Retry-Key' header is invalid" });
      return;
    }
    const accepted = retryKey === undefined ? undefined : acceptedRetryKeys.get(retryKey);
    if (accepted !== undefined) response.set('x-line-accepted-request-id', accepted);
    if (request.path === '/v2/bot/message/reply' && options.replyTokenLifetimeMs !== undefined) {
      const issued = issuedTokens.get((request.body as { replyToken?: string }).replyToken ?? '');
      if (issued !== undefined && clock.now() - issued.issuedAt > options.replyTokenLifetimeMs) {
        response.status(400).json({ message: 'Invalid reply token' });
        return;
      }
    }
    next();
  });
  app.use((request, response, next) => {
    const failure = failures.find((candidate) => candidate.path === request.path && candidate.times > 0);
    if (!failure) return next();
    failure.times--;
    response.status(failure.status).set('x-line-request-id', `req-${requests.length}`).json(failure.body);
  });
  app.use(lineApiRouter({ emulator, logger: silentLogger, validateRequest: validate }));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    emulator,
    requests,
    failNext: (
      path: string,
      status: number,
      body: Record<string, unknown> = { message: 'failure' },
      times = 1,
    ) => {
      failures.push({ path, status, body, times });
    },
    /**
     * Another access token of the channel, named after who will use it: the requests it
     * carries are recorded with `sender: name` (which process sent what).
     */
    accessTokenFor: (name: string) => {
      const token = `${emulator.channelAccessToken}-${name}`;
      accessTokens.set(`Bearer ${token}`, name);
      return token;
    },
    /** The chat a reply token was issued for: where a reply with it shows. */
    chatOfReplyToken: (token: string) => issuedTokens.get(token)?.chatId,
    /** The requests to one path (the enricher's profile lookups make others). */
    requestsTo: (path: string) => requests.filter((request) => request.path === path),
    /**
     * Stops the server, and fails when any request the bot sent broke LINE's schema: every
     * test that talks to this fake checks every outgoing request.
     */
    close: async (options: { allowSchemaProblems?: boolean } = {}) => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      const broken = requests.filter((request) => request.schemaProblems.length > 0);
      if (broken.length > 0 && !options.allowSchemaProblems) {
        throw new Error(
          `requests that break LINE's schema: ${broken.map((request) => `${request.method} ${request.path}: ${request.schemaProblems.join('; ')}`).join(' | ')}`,
        );
      }
    },
  };
}
