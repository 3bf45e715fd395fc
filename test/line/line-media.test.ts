import { afterEach, describe, expect, it } from 'vitest';
import { LineTransport } from '../../src/line/line-transport.js';
import { DownloadSlots, LineMedia, looksLike, MediaCache } from '../../src/line/media/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { pngBytes, startHostileServer, type HostileBehaviour } from '../support/hostile-http-server.js';

let server: Awaited<ReturnType<typeof startHostileServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MB = 1024 * 1024;
const image = (messageId: string) => ({ kind: 'image' as const, messageId });

async function mediaOn(
  behaviour: (path: string) => HostileBehaviour,
  options: Partial<ConstructorParameters<typeof LineMedia>[0]> = {},
) {
  server = await startHostileServer((request) => behaviour(request.path));
  const media = new LineMedia({
    transport: new LineTransport({ logger: silentLogger }),
    dataApiBaseUrl: server.url,
    channelAccessToken: 'token',
    logger: silentLogger,
    ...options,
  });
  return { media, server };
}

/** An m4a's first box: size, `ftyp`, brand `M4A `. */
const m4aBytes = () => Buffer.concat([Buffer.from('\0\0\0\x1cftypM4A \0\0\0\0', 'latin1'), Buffer.alloc(64)]);
const voice = (messageId: string) => ({ kind: 'audio' as const, messageId });

describe('LineMedia', () => {
  it('loads a voice message (m4a) as audio/mp4, and refuses a page served as audio/x-m4a', async () => {
    const m4a = m4aBytes();
    const { media, server } = await mediaOn((path) =>
      path.includes('/voice/')
        ? { kind: 'serve', contentType: 'audio/x-m4a', body: m4a }
        : { kind: 'serve', contentType: 'audio/x-m4a', body: Buffer.from('<html><body>hi</body></html>') },
    );

    expect(await media.load(voice('voice'), new AbortController().signal)).toEqual({
      mimeType: 'audio/mp4',
      data: m4a.toString('base64'),
    });
    expect(await media.load(voice('page'), new AbortController().signal)).toBeUndefined();
    // Loaded once: the turn's next model call takes it from the cache.
    await media.load(voice('voice'), new AbortController().signal);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses audio served with a type that is not m4a', async () => {
    const { media } = await mediaOn(() => ({ kind: 'serve', contentType: 'audio/mpeg', body: m4aBytes() }));

    expect(await media.load(voice('1'), new AbortController().signal)).toBeUndefined();
  });

  it('keeps 40 concurrent 10 MB downloads within its concurrency bound, and its cache within its bytes', async () => {
    const png = pngBytes(10 * MB);
    const { media, server } = await mediaOn(() => ({ kind: 'serve', contentType: 'image/png', body: png }), {
      maxBytes: 10 * MB + 1,
      concurrency: 4,
      cacheBytes: 32 * MB,
    });
    let peakActive = 0;
    const watch = setInterval(() => (peakActive = Math.max(peakActive, media.stats().active)), 1);

    // Only whether each arrived is kept: 40 base64 images would be half a gigabyte in this process.
    const arrived = await Promise.all(
      Array.from(
        { length: 40 },
        async (_, index) =>
          (await media.load(image(String(index)), new AbortController().signal))?.mimeType === 'image/png',
      ),
    );
    clearInterval(watch);

    expect(arrived.every(Boolean)).toBe(true);
    expect(server.requests).toHaveLength(40);
    expect(server.peakOpen()).toBeLessThanOrEqual(4);
    expect(peakActive).toBeLessThanOrEqual(4);
    expect(media.stats().cachedBytes).toBeLessThanOrEqual(32 * MB);
    expect(media.stats().cachedBytes).toBeGreaterThan(0);
  });

  it('ends a dripping download when the turn aborts, and does not remember the image as missing', async () => {
    const { media, server } = await mediaOn(() => ({
      kind: 'drip',
      contentType: 'image/png',
      intervalMs: 2000,
    }));
    const turn = new AbortController();
    setTimeout(() => turn.abort(new Error('turn deadline')), 200);
    const started = Date.now();

    expect(await media.load(image('1'), turn.signal)).toBeUndefined();

    expect(Date.now() - started).toBeLessThan(2000);
    expect(media.stats().cachedBytes).toBe(0);
    // The next turn asks again.
    await media.load(image('1'), AbortSignal.timeout(100));
    expect(server.requests).toHaveLength(2);
  });

  it('lets a turn that ends while waiting for a slot leave the queue at once', async () => {
    const { media } = await mediaOn(() => ({ kind: 'hang' }), { concurrency: 1, timeoutMs: 5000 });
    const first = media.load(image('1'), AbortSignal.timeout(1000));
    const waiting = new AbortController();
    const second = media.load(image('2'), waiting.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(media.stats()).toMatchObject({ active: 1, queued: 1 });

    waiting.abort();

    expect(await second).toBeUndefined();
    expect(media.stats().queued).toBe(0);
    expect(await first).toBeUndefined();
  });

  it('refuses an image whose declared length is over the cap before reading it', async () => {
    const { media } = await mediaOn(
      () => ({ kind: 'serve', contentType: 'image/png', body: pngBytes(4096) }),
      {
        maxBytes: 1024,
      },
    );
    expect(await media.load(image('1'), new AbortController().signal)).toBeUndefined();
  });

  it('asks once per message while the answer is cached, even when it was a refusal', async () => {
    const { media, server } = await mediaOn(() => ({
      kind: 'serve',
      status: 404,
      contentType: 'application/json',
      body: Buffer.from('{}'),
    }));
    const signal = new AbortController().signal;
    await media.load(image('1'), signal);
    await media.load(image('1'), signal);
    expect(server.requests).toHaveLength(1);
  });
});

describe('MediaCache', () => {
  it('drops the oldest entries beyond its bytes and skips a value larger than all of it', () => {
    const cache = new MediaCache<string>({ maxBytes: 100, ttlMs: 60_000 });
    cache.set('a', 'a', 40);
    cache.set('b', 'b', 40);
    cache.set('c', 'c', 40);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toEqual({ value: 'c' });
    expect(cache.totalBytes).toBe(80);
    cache.set('huge', 'huge', 101);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.totalBytes).toBe(80);
    cache.clear();
  });

  it('forgets entries after their TTL', () => {
    let now = 0;
    const cache = new MediaCache<string | undefined>({ maxBytes: 100, ttlMs: 1000, now: () => now });
    cache.set('a', undefined, 1);
    expect(cache.get('a')).toEqual({ value: undefined });
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.totalBytes).toBe(0);
    cache.clear();
  });

  it('gives the memory back when idle: a sweep drops expired entries with no call to the cache', async () => {
    const cache = new MediaCache<string>({ maxBytes: 100, ttlMs: 50 });
    cache.set('a', 'a', 10);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(cache.totalBytes).toBe(0);
    expect(cache.size).toBe(0);
  });
});

describe('DownloadSlots', () => {
  it('runs at most its limit at once and hands a slot on in order', async () => {
    const slots = new DownloadSlots(2);
    const order: number[] = [];
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        slots.run(new AbortController().signal, async () => {
          running++;
          peak = Math.max(peak, running);
          order.push(index);
          await new Promise((resolve) => setTimeout(resolve, 10));
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(slots.active).toBe(0);
  });

  it('releases the slot when the work fails', async () => {
    const slots = new DownloadSlots(1);
    await expect(
      slots.run(new AbortController().signal, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(slots.active).toBe(0);
  });
});

describe('looksLike', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');
  it.each([
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]), true],
    ['image/png', pngBytes(16), true],
    ['image/gif', bytes('GIF89a....'), true],
    ['image/webp', bytes('RIFF\0\0\0\0WEBPVP8 '), true],
    ['image/heic', bytes('\0\0\0\x18ftypheic'), true],
    ['image/png', bytes('<html><body>'), false],
    ['image/jpeg', pngBytes(16), false],
    ['image/svg+xml', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'), false],
    ['image/png', Buffer.alloc(0), false],
    ['audio/x-m4a', bytes('\0\0\0\x1cftypM4A '), true],
    ['audio/x-m4a', bytes('<html><body>'), false],
  ])('%s: %j → %s', (type, content, expected) => {
    expect(looksLike(type, content)).toBe(expected);
  });
});
