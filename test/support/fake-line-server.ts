import express from 'express';
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
}

/**
 * A local HTTP server posing as LINE's Messaging API: the emulator's rules (single-use,
 * expiring reply tokens; 409 for a repeated retry key) and LINE's schemas, recording
 * every request so tests can assert on exactly what the bot sent. LINE's faults (429, 5xx, a
 * dropped connection, before or after the call took effect) are queued on `emulator.faults`
 * (docs/line.md, "Fault injection, for tests").
 */
export async function startFakeLine(options: { clock?: Clock } = {}) {
  const schemas = await LineSchemas.load();
  const emulator = new LineEmulator(options.clock ?? { now: () => Date.now() });
  const requests: RecordedLineRequest[] = [];
  /** Scripted failures: the next `times` requests to `path` answer `status` with `body`. */
  const failures: { path: string; status: number; body: Record<string, unknown>; times: number }[] = [];
  const validate = (method: string, path: string, body: unknown) => {
    const result = schemas.validateRequest(method, path, body);
    return result.ok ? [] : result.errors;
  };
  const app = express();
  app.use(express.json({ limit: '2mb' }), (request, _response, next) => {
    requests.push({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body as unknown,
      schemaProblems: validate(request.method, request.path, request.body),
    });
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
