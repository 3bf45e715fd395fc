import { randomBytes } from 'node:crypto';
import type { InboundMessage, JsonObject } from '../../src/domain/index.js';
import type { HistoryRecord } from '../../src/persistence/source-store.js';

// A simple reply turn as the runtime persists it: the LINE message in the inbox, the durable
// intent (the user entry, the model's `reply` call with its thought signature, and a head
// whose snapshot is the conversation actor delivering), then the sent marker (the closing
// tool entry and an idle head). The snapshots follow the conversation machine's persisted
// shape without `history` and `settings` (docs/persistence.md, "WCU per turn").

export interface ReplyTurn {
  readonly message: InboundMessage;
  readonly intent: { readonly snapshot: JsonObject; readonly records: HistoryRecord[] };
  readonly sent: { readonly snapshot: JsonObject; readonly records: HistoryRecord[] };
}

/** A LINE user id: `U` and 32 hex digits. */
export function lineUserId(): string {
  return `U${randomBytes(16).toString('hex')}`;
}

/**
 * The `turn`th simple reply turn of a 1:1 chat: a short question, a short answer, a thought
 * signature of `signatureBytes` base64 characters. `firstSeq` numbers its history records.
 */
export function replyTurn(options: {
  readonly sourceId: string;
  readonly turn: number;
  readonly firstSeq: number;
  readonly signatureBytes: number;
  /** The answer's text; default a short English sentence. */
  readonly answer?: string;
}): ReplyTurn {
  const { sourceId, turn, firstSeq } = options;
  const source = { kind: 'user' as const, id: sourceId };
  const timestamp = 1_760_000_000_000 + turn * 60_000;
  // LINE's ids and tokens: a webhook event id (ULID), a message id, a reply and a quote token.
  const eventId = `01K${randomBytes(12).toString('hex').toUpperCase().slice(0, 23)}`;
  const message: InboundMessage = {
    eventId,
    source,
    sender: { userId: sourceId },
    text: `Is it going to rain in Osaka tomorrow? (${turn})`,
    messageId: String(580_000_000_000_000_000 + turn),
    timestamp,
    replyToken: randomBytes(16).toString('hex'),
    quoteToken: randomBytes(96).toString('base64url'),
  };
  const answer = options.answer ?? `Tomorrow looks dry in Osaka, with clouds in the afternoon. (${turn})`;
  const callId = `${eventId}#1.0`;
  const args: JsonObject = { message: answer };
  const usage = { promptTokens: 1_850, outputTokens: 42, cachedTokens: 1_024 };

  const user: HistoryRecord = {
    seq: firstSeq,
    entry: {
      role: 'user',
      eventId,
      sender: { userId: sourceId },
      text: message.text,
      timestamp,
      messageId: message.messageId!,
    },
  };
  const model: HistoryRecord = {
    seq: firstSeq + 1,
    entry: {
      role: 'model',
      turnId: eventId,
      calls: [{ id: callId, name: 'reply', args }],
      providerParts: [
        { functionCall: { name: 'reply', args }, thoughtSignature: randomBase64(options.signatureBytes) },
      ],
    },
  };
  const tool: HistoryRecord = {
    seq: firstSeq + 2,
    entry: {
      role: 'tool',
      turnId: eventId,
      results: [{ callId, name: 'reply', response: { status: 'sent' } }],
    },
  };

  const buckets = [
    { period: 'minute', start: timestamp - (timestamp % 60_000), modelCalls: 1, tokens: 1_892 },
    { period: 'day', start: timestamp - (timestamp % 86_400_000), modelCalls: turn, tokens: 1_892 * turn },
  ];
  const common = { source, pending: [], chat: {}, usage: buckets };
  const intent: JsonObject = {
    status: 'active',
    value: { toolCall: 'delivering' },
    historyValue: {},
    context: {
      ...common,
      turn: {
        id: eventId,
        messages: [message as unknown as JsonObject],
        startedAt: timestamp,
        deadline: timestamp + 60_000,
        modelCalls: 1,
        step: [
          {
            call: { id: callId, name: 'reply', args },
            outcome: { callId, name: 'reply', response: { status: 'sent' }, isError: false, forUser: answer },
          },
        ],
        deliveries: 0,
        replied: false,
        usage,
      },
      lastTurn:
        turn > 1
          ? { id: 'previous', stopReason: 'final-tool', modelCalls: 1, usage, startedAt: timestamp - 60_000 }
          : null,
    },
    children: {
      '0.conversation.toolCall.delivering': {
        snapshot: {
          status: 'active',
          input: {
            source,
            turnId: eventId,
            index: 0,
            texts: [answer],
            replyToken: message.replyToken!,
            replyTokenIssuedAt: timestamp,
            quoteToken: message.quoteToken!,
          },
        },
        src: 'reply',
        syncSnapshot: false,
      },
    },
  };
  const idle: JsonObject = {
    status: 'active',
    value: 'idle',
    historyValue: {},
    context: {
      ...common,
      turn: null,
      lastTurn: { id: eventId, stopReason: 'final-tool', modelCalls: 1, usage, startedAt: timestamp },
    },
    children: {},
  };
  return {
    message,
    intent: { snapshot: intent, records: [user, model] },
    sent: { snapshot: idle, records: [tool] },
  };
}

/** `length` characters of base64 (what Gemini's thoughtSignature is), from random bytes. */
export function randomBase64(length: number): string {
  return randomBytes(Math.ceil((length * 3) / 4) + 3)
    .toString('base64')
    .slice(0, length);
}
