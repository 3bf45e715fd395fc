/** The bot the benchmark's LINE speaks for: its `GET /v2/bot/info`, and every webhook's `destination`. */
export const BENCH_BOT_USER_ID = 'U' + 'b'.repeat(32);
