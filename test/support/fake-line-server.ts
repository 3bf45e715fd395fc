import express, { type Request, type Response } from 'express';
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
  /** The `x-line-request-id` this request was answered with (when it was answered at all). */
  readonly requestId: string;
  /** When it arrived (ms since the epoch). */
  readonly time: number;
  /** The name of the access token it carried (see `accessTokenFor`), when not the channel's own. */
  readonly sender?: string;
  /** The status the fake answered, once it answered. */
  status?: number;
}

/**
 * What an injected fault does to a request. `when: 'before'` fails it before LINE processes it
 * (nothing sent); `when: 'after'` lets LINE process it (the message is delivered, a retry key is
 * taken) and then spoils the answer — LINE's "may have been delivered".
 */
export type LineFault =
  | { readonly kind: 'status'; readonly status: number; readonly body?: Record<string, unknown> }
  /** The connection is cut without an answer. */
  | { readonly kind: 'drop' }
  /** No answer ever comes: the caller's timeout must end the call. */
  | { readonly kind: 'stall' };

interface ScheduledFault {
  readonly path: string;
  readonly fault: LineFault;
  readonly when: 'before' | 'after';
  times: number;
}

/**
 * A local HTTP server posing as LINE's Messaging API: the emulator's LINE API
 * (`src/line/emulator/`, as strict as LINE: single-use, expiring reply tokens, an
 * `x-line-request-id` on every answer, retry keys that must be UUIDs, are refused on the reply
 * endpoint, are honoured for 24 hours and answer a repeat with 409 and
 * `x-line-accepted-request-id`), plus faults a test schedules per path — any status, a dropped
 * connection or a call never answered — before or after LINE processed the request. The
 * emulator's own fault queue (docs/line.md, "Fault injection, for tests") works here too. Every
 * request is recorded and checked against LINE's schemas.
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
  const clock = options.clock ?? { now: () => Date.now() };
  const schemas = await LineSchemas.load();
  const emulator = new LineEmulator(clock);
  const requests: RecordedLineRequest[] = [];
  const faults: ScheduledFault[] = [];
  /** When and for which chat each reply token was issued. */
  const issuedTokens = new Map<string, { chatId: string; issuedAt: number }>();
  const issueReplyToken = emulator.issueReplyToken.bind(emulator);
  emulator.issueReplyToken = (chatId: string) => {
    const token = issueReplyToken(chatId);
    issuedTokens.set(token, { chatId, issuedAt: clock.now() });
    return token;
  };
  /** More access tokens of the channel (LINE allows several), by the name of who uses them. */
  const accessTokens = new Map<string, string>();
  const validate = (method: string, path: string, body: unknown) => {
    const result = schemas.validateRequest(method, path, body);
    return result.ok ? [] : result.errors;
  };
  const app = express();
  app.use(express.json({ limit: '2mb' }), (request, response, next) => {
    const sender = accessTokens.get(request.get('authorization') ?? '');
    // The channel's other tokens are as good as its first: the emulator knows only that one.
    if (sender !== undefined) request.headers.authorization = `Bearer ${emulator.channelAccessToken}`;
    // The emulator's router sets the answer's request id; a fault played here sets one itself.
    response.set('x-line-request-id', randomUUID());
    const recorded: RecordedLineRequest = {
      method: request.method,
      path: request.path,
      headers: { ...request.headers },
      body: request.body as unknown,
      schemaProblems: validate(request.method, request.path, request.body),
      get requestId() {
        return response.get('x-line-request-id')!;
      },
      time: clock.now(),
      ...(sender !== undefined && { sender }),
    };
    requests.push(recorded);
    // What LINE decided is recorded when it decides: the bot may die before the answer reaches it.
    const answer = response.json.bind(response);
    const delayMs = request.path.startsWith('/v2/bot/message/') ? (options.messageLatencyMs?.() ?? 0) : 0;
    response.json = (body: unknown) => {
      recorded.status = response.statusCode;
      if (delayMs > 0) setTimeout(() => answer(body), delayMs);
      else answer(body);
      return response;
    };
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
    const index = faults.findIndex((candidate) => candidate.path === request.path && candidate.times > 0);
    const scheduled = faults[index];
    if (scheduled) {
      scheduled.times--;
      if (scheduled.times === 0) faults.splice(index, 1);
    }
    if (scheduled?.when === 'before') return applyFault(request, response, scheduled.fault);
    if (scheduled?.when === 'after') {
      const json = response.json.bind(response);
      response.json = () => {
        applyFault(request, response, scheduled.fault, json);
        return response;
      };
    }
    next();
  });
  app.use(lineApiRouter({ emulator, logger: silentLogger, validateRequest: validate }));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const inject = (path: string, fault: LineFault, when: 'before' | 'after' = 'before', times = 1) => {
    faults.push({ path, fault, when, times });
  };
  return {
    url: `http://127.0.0.1:${port}`,
    emulator,
    requests,
    /** The next `times` requests to `path` answer `status` with `body`, unprocessed. */
    failNext: (
      path: string,
      status: number,
      body: Record<string, unknown> = { message: 'failure' },
      times = 1,
    ) => inject(path, { kind: 'status', status, body }, 'before', times),
    /** The next `times` requests to `path` meet `fault`, before or after LINE processed them. */
    inject,
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
    /** The bot's messages the user saw, in order. */
    shown: () => emulator.entries().filter((entry) => entry.from === 'bot'),
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

function applyFault(
  request: Request,
  response: Response,
  fault: LineFault,
  json: (body: unknown) => Response = (body) => response.json(body),
): void {
  if (fault.kind === 'drop') {
    request.socket.destroy();
  } else if (fault.kind === 'status') {
    response.status(fault.status);
    json(fault.body ?? { message: fault.status >= 500 ? 'Internal server error' : 'failure' });
  }
  // 'stall': never answered; `close()` ends the connection.
}
