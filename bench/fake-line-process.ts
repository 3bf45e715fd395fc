import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The benchmark's LINE: answers reply and push at once and counts them. Its own process, so
// its CPU is not the bot's.
let replies = 0;
let pushes = 0;
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    if (request.url === '/stats') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ replies, pushes }));
      return;
    }
    if (request.url === '/v2/bot/message/reply') replies++;
    else if (request.url === '/v2/bot/message/push') pushes++;
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"sentMessages":[{"id":"1","quoteToken":"q"}]}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('disconnect', () => process.exit(0));
