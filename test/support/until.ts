/**
 * Polls `probe` until it returns something other than `undefined` or `false`, and returns that.
 * For outcomes no actor snapshot announces (requests at a fake server, rows in a store).
 * @example
 * const reply = await until(() => line.requestsTo('/v2/bot/message/reply')[0]);
 * await until(async () => (await store.load(id))?.busy === false);
 */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
