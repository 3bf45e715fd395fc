import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_BOT_USER_ID } from './bench-bot.js';

// The benchmark's LINE: answers at once and counts requests by kind. Its own process, so its
// CPU is not the bot's. Profiles are answered as LINE would, so kaiwa's display-name lookup
// (once per source, then cached) costs what it costs. A reply that is not the bench model's
// answer ("re: …") — a limit notice, an apology — is counted apart: the bench checks there are none.
let replies = 0;
let otherReplies = 0;
let pushes = 0;
let profiles = 0;
let other = 0;
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    const json = (status: number, payload: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    const url = request.url ?? '';
    if (url === '/stats') return json(200, { replies, otherReplies, pushes, profiles, other });
    if (url === '/v2/bot/info') {
      const bot = { basicId: '@bench', displayName: 'bench', chatMode: 'bot', markAsReadMode: 'auto' };
      return json(200, { userId: BENCH_BOT_USER_ID, ...bot });
    }
    if (url === '/v2/bot/message/reply') {
      replies++;
      const { messages } = JSON.parse(body) as { messages: { text?: string }[] };
      if (!messages[0]?.text?.startsWith('re: ')) otherReplies++;
    } else if (url === '/v2/bot/message/push') pushes++;
    else if (url.startsWith('/v2/bot/profile/')) {
      profiles++;
      return json(200, {
        userId: url.slice('/v2/bot/profile/'.length),
        displayName: 'Bench User',
        language: 'en',
      });
    } else other++;
    json(200, { sentMessages: [{ id: '1', quoteToken: 'q' }] });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('disconnect', () => process.exit(0));
