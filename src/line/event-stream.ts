import type { ServerResponse } from 'node:http';

/** What an event stream buffers for a client that does not read, before it drops the client. */
export const MAX_EVENT_STREAM_BUFFER_BYTES = 1024 * 1024;

/**
 * Answers with server-sent events and returns the writer of the stream (the emulator's page and
 * the inspector's). A client that stops reading — a stalled socket, a frozen tab — is dropped
 * once a mebibyte waits for it, rather than buffered for until memory runs out: `EventSource`
 * connects again, and the page fetches what it missed.
 *
 * @example
 * const send = startEventStream(response);
 * const unsubscribe = journal.subscribe((entry) => send(`data: ${JSON.stringify(entry)}\n\n`));
 */
export function startEventStream(response: ServerResponse): (text: string) => void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  const send = (text: string) => {
    if (response.writableLength > MAX_EVENT_STREAM_BUFFER_BYTES) response.destroy();
    else response.write(text);
  };
  send(': connected\n\n');
  return send;
}
