import type { RecordedLineRequest } from './fake-line-server.js';
import { marksIn } from './echo-gemini.js';

/** A message a crash test sent, once the webhook accepted it. */
export interface SentMessage {
  readonly mark: string;
  readonly chatId: string;
  readonly source: number;
  /** Its place among its source's messages, from 0. */
  readonly position: number;
  /** The event's timestamp (when the reply token was issued). */
  readonly sentAt: number;
  readonly acceptedAt: number;
}

/** The message marks in every text LINE accepted from the bot (a reply or a push that got 200). */
export function answeredMarks(requests: readonly RecordedLineRequest[]): Set<string> {
  return new Set(
    requests
      .filter((request) => request.status === 200 && /\/v2\/bot\/message\/(reply|push)$/.test(request.path))
      .flatMap((request) => (request.body as { messages: { text?: string }[] }).messages)
      .flatMap((message) => marksIn(message.text ?? '')),
  );
}

/** A SIGKILL: which incarnation died, and when. */
export interface Kill {
  readonly instance: string;
  readonly time: number;
}

/** One text LINE showed the user. */
interface Delivery {
  readonly chatId: string;
  readonly via: 'reply' | 'push';
  readonly time: number;
  readonly sender: string | undefined;
  readonly text: string;
}

/** What a crash run measured, and every way it broke kaiwa's guarantees (docs/runtime.md). */
export interface CrashVerdict {
  readonly messages: number;
  readonly kills: number;
  /** Messages whose mark reached the user in a model answer. */
  readonly answered: number;
  readonly replies: number;
  readonly pushes: number;
  /** Replies LINE refused as "Invalid reply token" (a resumed delivery finding its token used or old). */
  readonly refusedReplies: number;
  /** Pushes LINE answered 409: their retry key had been accepted before. */
  readonly repeatedRetryKeys: number;
  /** Replies whose sender was killed right after (within `markerWindowMs`): the window's opportunities. */
  readonly cutReplies: number;
  /** Answers shown twice in the documented window: a reply, its sender killed, then a push after the token's TTL. */
  readonly windowDuplicates: number;
  /** Everything that breaks the guarantees; empty when the run passed. */
  readonly problems: string[];
}

/**
 * Judges a crash run from what the fake LINE received: every message answered by the model
 * (never an apology or a notice), none lost, per-source order kept, and no answer shown twice
 * except in the one window docs/runtime.md ("Fenced side effects", "The one gap") documents —
 * the first showing a reply whose sender was killed right after it, before its marker could be
 * written (`markerWindowMs`), the second a push sent once the reply token's TTL
 * (`replyTokenTtlMs` after the event) had passed.
 */
export function judgeCrashRun(input: {
  readonly messages: readonly SentMessage[];
  readonly kills: readonly Kill[];
  readonly requests: readonly RecordedLineRequest[];
  /** The chat of a reply token (the fake LINE knows). */
  readonly chatOfReplyToken: (token: string) => string | undefined;
  readonly replyTokenTtlMs: number;
  /**
   * How long after a reply reached LINE its sender may die and still be "between LINE's answer
   * and the marker": LINE's latency, the answer's way back and the marker's write.
   */
  readonly markerWindowMs: number;
}): CrashVerdict {
  const problems: string[] = [];
  const byMark = new Map(input.messages.map((message) => [message.mark, message]));
  const deliveries: Delivery[] = input.requests
    .filter((request) => request.status === 200 && /\/v2\/bot\/message\/(reply|push)$/.test(request.path))
    .flatMap((request) => {
      const body = request.body as { to?: string; replyToken?: string; messages: { text?: string }[] };
      const via = request.path.endsWith('/reply') ? ('reply' as const) : ('push' as const);
      const chatId = via === 'reply' ? input.chatOfReplyToken(body.replyToken ?? '') : body.to;
      return body.messages.map((message) => ({
        chatId: chatId ?? 'unknown',
        via,
        time: request.time,
        sender: request.sender,
        text: message.text ?? '',
      }));
    })
    .sort((first, second) => first.time - second.time);

  const shown = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    if (!delivery.text.startsWith('re: ')) {
      problems.push(`not a model answer (${delivery.via} at ${delivery.time}): "${delivery.text}"`);
      continue;
    }
    for (const mark of marksIn(delivery.text)) {
      if (!byMark.has(mark)) problems.push(`an answer to a message never sent: ${mark}`);
      shown.set(mark, [...(shown.get(mark) ?? []), delivery]);
    }
  }

  let windowDuplicates = 0;
  for (const message of input.messages) {
    const [first, ...again] = shown.get(message.mark) ?? [];
    if (!first) {
      problems.push(`lost: ${message.mark} (accepted at ${message.acceptedAt}) was never answered`);
      continue;
    }
    for (const second of again) {
      const senderKilled = input.kills.some(
        (kill) =>
          kill.instance === first.sender &&
          kill.time >= first.time &&
          kill.time <= Math.min(second.time, first.time + input.markerWindowMs),
      );
      const inWindow =
        first.via === 'reply' &&
        second.via === 'push' &&
        senderKilled &&
        second.time - message.sentAt > input.replyTokenTtlMs;
      if (inWindow) windowDuplicates++;
      else {
        // When its first sender died after it, for telling a slow sent marker from a real loss.
        const killed = input.kills.find((kill) => kill.instance === first.sender && kill.time >= first.time);
        const death = killed ? `, ${first.sender} killed ${killed.time - first.time} ms after it` : '';
        problems.push(
          `shown twice: ${message.mark} by ${first.via} (${first.sender ?? '?'} at ${first.time}) and by ${second.via} (${second.sender ?? '?'} at ${second.time}), sent at ${message.sentAt}${death}`,
        );
      }
    }
  }

  // Per source, the answers come in the order the messages were sent.
  const chats = new Map<string, string[]>();
  for (const delivery of deliveries) {
    for (const mark of marksIn(delivery.text)) {
      const seen = chats.get(delivery.chatId) ?? [];
      if (!seen.includes(mark)) seen.push(mark);
      chats.set(delivery.chatId, seen);
    }
  }
  for (const message of input.messages) {
    for (const delivery of shown.get(message.mark) ?? []) {
      if (delivery.chatId !== message.chatId) {
        problems.push(`${message.mark} was answered in another chat (${delivery.chatId})`);
      }
    }
  }
  for (const [chatId, marks] of chats) {
    const positions = marks.map((mark) => byMark.get(mark)?.position ?? -1);
    if (positions.some((position, index) => index > 0 && position < positions[index - 1]!)) {
      problems.push(`out of order in ${chatId}: ${marks.join(' ')}`);
    }
  }

  const statusOf = (path: string, status: number) =>
    input.requests.filter((request) => request.path === path && request.status === status).length;
  return {
    messages: input.messages.length,
    kills: input.kills.length,
    answered: input.messages.filter((message) => shown.has(message.mark)).length,
    replies: deliveries.filter((delivery) => delivery.via === 'reply').length,
    pushes: deliveries.filter((delivery) => delivery.via === 'push').length,
    refusedReplies: statusOf('/v2/bot/message/reply', 400),
    repeatedRetryKeys: statusOf('/v2/bot/message/push', 409),
    cutReplies: input.requests.filter(
      (request) =>
        request.path === '/v2/bot/message/reply' &&
        request.status === 200 &&
        input.kills.some(
          (kill) =>
            kill.instance === request.sender &&
            kill.time >= request.time &&
            kill.time <= request.time + input.markerWindowMs,
        ),
    ).length,
    windowDuplicates,
    problems,
  };
}
