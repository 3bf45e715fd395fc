// What the benchmark's fake LINE (`fake-line-process.ts`) counted, read over HTTP.

export interface FakeLineStats {
  readonly replies: number;
  /** Replies that were not the bench model's answer: a limit notice, an apology. */
  readonly otherReplies: number;
  readonly pushes: number;
  readonly profiles: number;
  readonly other: number;
}

export async function fakeLineStats(lineUrl: string): Promise<FakeLineStats> {
  const response = await fetch(`${lineUrl}/stats`);
  return (await response.json()) as FakeLineStats;
}

export async function fakeLineReplies(lineUrl: string): Promise<number> {
  return (await fakeLineStats(lineUrl)).replies;
}
