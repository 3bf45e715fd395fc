import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedMessageWebhook } from './bench-bot.js';
import { ask, forkBench, nextMessage, stop } from './process-control.js';
import { fakeLineReplies } from './fake-line-stats.js';

// The hostile-media benchmark's measurement (`npm run bench:hostile` writes its figures): `sources`
// sources each send one image of `imageBytes` at once; the bot, the fake LINE and the content
// server (this process) are separate processes.

export interface HostileMediaOptions {
  readonly sources: number;
  readonly imageBytes: number;
  /** How long the bot idles after the last reply before its memory is read again. */
  readonly idleMs: number;
  /** How long the replies may take before the run fails. */
  readonly replyTimeoutMs?: number;
}

export interface HostileMediaFigures {
  readonly idleMiB: number;
  readonly peakMiB: number;
  readonly doneMiB: number;
  readonly afterIdleMiB: number;
  readonly liveAfterIdleMiB: number;
  readonly seconds: number;
  /** Images the content server served: one per source when nothing is downloaded twice. */
  readonly downloads: number;
}

interface Memory {
  rss: number;
  maxRss: number;
  /** V8's heap in use plus memory outside it (Buffers, large strings): what the process still holds. */
  live: number;
}

const MiB = 1024 * 1024;

/** A content API that serves the same JPEG-looking body for every message. */
async function startContentServer(imageBytes: number) {
  const image = Buffer.alloc(imageBytes, 0x00);
  image.set([0xff, 0xd8, 0xff, 0xe0]);
  let served = 0;
  const server = createServer((_request, response) => {
    served++;
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(image.length) });
    response.end(image);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function imageWebhook(index: number): { body: string; signature: string } {
  return signedMessageWebhook({
    userId: `U${index.toString(16).padStart(32, '0')}`,
    webhookEventId: `01HBENCHIMAGE${String(index).padStart(13, '0')}`,
    replyToken: `reply-${index}`,
    message: {
      type: 'image',
      id: String(900000 + index),
      quoteToken: `q${index}`,
      contentProvider: { type: 'line' },
    },
  });
}

/** One run: the bot's memory before, at its peak, after the last reply and after idling. */
export async function measureHostileMedia(options: HostileMediaOptions): Promise<HostileMediaFigures> {
  const content = await startContentServer(options.imageBytes);
  const line = forkBench('fake-line-process.ts');
  const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
  const bot = forkBench('media-bot-process.ts', [], {
    BENCH_LINE_URL: lineUrl,
    BENCH_CONTENT_URL: content.url,
  });
  try {
    const { url: botUrl } = await nextMessage<{ url: string }>(bot, 'ready');
    const memory = () => ask<Memory>(bot, 'memory');
    const replies = () => fakeLineReplies(lineUrl);
    const idle = await memory();
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: options.sources }, async (_, index) => {
        const { body, signature } = imageWebhook(index);
        const response = await fetch(`${botUrl}/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-line-signature': signature },
          body,
        });
        return response.status;
      }),
    );
    if (statuses.some((status) => status !== 200)) throw new Error(`webhook answered ${statuses.join(', ')}`);
    // Bounded: a bot that answers 200 but stores nothing (a refused webhook) fails the run, never hangs it.
    const timeoutMs = options.replyTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    while ((await replies()) < options.sources) {
      if (Date.now() > deadline) {
        throw new Error(`${await replies()} of ${options.sources} replies within ${timeoutMs / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const done = await memory();
    await new Promise((resolve) => setTimeout(resolve, options.idleMs));
    const after = await memory();
    return {
      idleMiB: idle.rss / MiB,
      peakMiB: done.maxRss / MiB,
      doneMiB: done.rss / MiB,
      afterIdleMiB: after.rss / MiB,
      liveAfterIdleMiB: after.live / MiB,
      seconds,
      downloads: content.served(),
    };
  } finally {
    await stop(bot);
    await stop(line);
    await content.close();
  }
}
