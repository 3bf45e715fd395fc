import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { BENCH_BOT_USER_ID } from './bench-bot.js';

// The load generator, in its own process: signed webhooks at a fixed concurrency, then waits
// until the fake LINE has counted every reply. Reports the wall time from first send to last reply.
interface LoadOptions {
  botUrl: string;
  lineUrl: string;
  turns: number;
  sources: number;
  concurrency: number;
  label: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(url: string, body: string, signature: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-line-signature': signature,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function lineReplies(lineUrl: string): Promise<number> {
  const response = await fetch(`${lineUrl}/stats`);
  return ((await response.json()) as { replies: number }).replies;
}

async function run(options: LoadOptions) {
  const bodies = Array.from({ length: options.turns }, (_, index) => {
    const userId = `U${String(index % options.sources).padStart(32, '0')}`;
    const body = JSON.stringify({
      destination: BENCH_BOT_USER_ID,
      events: [
        {
          type: 'message',
          mode: 'active',
          timestamp: Date.now(),
          source: { type: 'user', userId },
          webhookEventId: `${options.label}-${index}-${randomUUID()}`,
          deliveryContext: { isRedelivery: false },
          replyToken: randomUUID(),
          message: { type: 'text', id: String(index), quoteToken: 'q', text: `message ${index}` },
        },
      ],
    });
    return { body, signature: createHmac('sha256', 'bench-secret').update(body).digest('base64') };
  });
  const before = await lineReplies(options.lineUrl);
  const started = performance.now();
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < bodies.length) {
        const { body, signature } = bodies[next++]!;
        const status = await post(`${options.botUrl}/webhook`, body, signature);
        if (status !== 200) failures++;
      }
    }),
  );
  const acknowledged = performance.now() - started;
  const deadline = Date.now() + 120_000;
  while ((await lineReplies(options.lineUrl)) - before < options.turns - failures) {
    if (Date.now() > deadline) throw new Error('replies did not all arrive within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsed = performance.now() - started;
  process.send?.({ type: 'done', elapsedMs: elapsed, acknowledgedMs: acknowledged, failures });
}

process.on('message', (message: { type: string; options: LoadOptions }) => {
  if (message.type === 'run') {
    run(message.options).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  }
});
process.on('disconnect', () => process.exit(0));
