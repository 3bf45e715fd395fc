import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A wttr.in `?format=j1` answer for Tokyo: three days of 3-hourly forecasts, values as strings. */
export const tokyoJ1Text = readFileSync(new URL('./fixtures/wttr-j1-tokyo.json', import.meta.url), 'utf8');

export type WeatherHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Answers every request with the Tokyo fixture, as wttr.in would. */
export const serveTokyo: WeatherHandler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end(tokyoJ1Text);
};

/**
 * A local HTTP server posing as wttr.in (there is no network in tests). It records each
 * request's raw path, exactly as it arrived, so tests can check what the tool encoded.
 */
export async function startFakeWeatherServer(handler: WeatherHandler = serveTokyo) {
  const rawPaths: string[] = [];
  let respond = handler;
  const server = createServer((request, response) => {
    rawPaths.push(request.url ?? '');
    respond(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    rawPaths,
    /** Replaces the handler for the requests that follow. */
    respondWith(next: WeatherHandler) {
      respond = next;
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
