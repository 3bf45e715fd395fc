import { deflateRawSync, inflateRawSync } from 'node:zlib';

// The DynamoDB source store keeps snapshots and history as deflated JSON in binary attributes.
// DynamoDB bills writes per started KB of the item, and a conversation snapshot repeats itself
// (the reply text sits in the step, its outcome and the delivery's input) and its key names:
// deflate with a preset dictionary of those names makes the head of a turn in progress about a
// quarter of its JSON, which is what keeps a simple reply turn under 20 write units
// (docs/persistence.md, "WCU per turn"). JSON inside keeps what string attributes gave: any
// nesting depth, numbers byte for byte.

/** The first byte of every value: which codec wrote it. Never reuse a number. */
const DEFLATE_WITH_DICTIONARY_1 = 1;

/**
 * Fragments the conversation snapshot, history records and inbox messages are made of, for
 * `DEFLATE_WITH_DICTIONARY_1`. Part of the stored format: never change it; add a codec with a
 * new dictionary instead. (An outdated dictionary only compresses less.)
 */
const DICTIONARY_1 = Buffer.from(
  [
    '{"type":"text","eventId":"","source":{"kind":"group","id":"C","kind":"room","id":"R"},"chatTitle":"","memberCount":',
    '"lineEvent":"follow","quiet":true,"attachment":{"kind":"image","messageId":"","mimeType":"image/jpeg"},',
    '"stopReason":"no-function-calls","stopReason":"model-call-limit","stopReason":"limit-reached","isError":true,',
    '[{"role":"user","eventId":"","sender":{"userId":"U","displayName":""},"text":"","timestamp":17,"messageId":"5"},',
    '{"role":"model","turnId":"","text":"","calls":[{"id":"#1.0","name":"get_weather","args":{"location":""}}],',
    '"providerParts":[{"text":"","thought":true},{"functionCall":{"name":"reply","args":{"message":""}},"thoughtSignature":""}]},',
    '{"role":"tool","turnId":"","results":[{"callId":"#1.0","name":"reply","response":{"status":"sent"}}]}]',
    '{"seq":1,"entry":{"role":"user","eventId":"01',
    '{"status":"active","value":"idle","historyValue":{},"context":{"source":{"kind":"user","id":"U"},"pending":[],',
    '"chat":{},"usage":[{"period":"minute","start":17,"modelCalls":1,"tokens":0},{"period":"day","start":17,',
    '"turn":null,"turn":{"id":"01","messages":[{"eventId":"01","source":{"kind":"user","id":"U"},"sender":{"userId":"U"},',
    '"text":"","messageId":"5","timestamp":17,"replyToken":"","quoteToken":""}],"startedAt":17,"deadline":17,"modelCalls":1,',
    '"step":[{"call":{"id":"01#1.0","name":"reply","args":{"message":""}},"outcome":{"callId":"01#1.0","name":"reply",',
    '"response":{"status":"sent"},"isError":false,"forUser":""}}],"deliveries":0,"replied":false,',
    '"usage":{"promptTokens":0,"outputTokens":0,"cachedTokens":0}},"lastTurn":null,',
    '"lastTurn":{"id":"01","stopReason":"final-tool","modelCalls":1,"usage":{"promptTokens":0,"outputTokens":0,"cachedTokens":0},"startedAt":17}},',
    '"children":{},"children":{"0.conversation.toolCall.delivering":{"snapshot":{"status":"active","input":{"source":',
    '{"kind":"user","id":"U"},"turnId":"01","index":0,"texts":[""],"replyToken":"","replyTokenIssuedAt":17,"quoteToken":""}},',
    '"src":"reply","syncSnapshot":false}}}',
  ].join(''),
);

/**
 * Serialises a value to JSON and deflates it: one codec byte, then raw deflate (no header).
 *
 * @example
 * const bytes = compressJson({ value: 'idle' }); // Uint8Array for a `B` attribute
 */
export function compressJson(value: unknown): Uint8Array {
  const deflated = deflateRawSync(JSON.stringify(value), { dictionary: DICTIONARY_1 });
  const bytes = new Uint8Array(deflated.byteLength + 1);
  bytes[0] = DEFLATE_WITH_DICTIONARY_1;
  bytes.set(deflated, 1);
  return bytes;
}

/** Inflates and parses what `compressJson` wrote. */
export function decompressJson<T>(bytes: Uint8Array): T {
  if (bytes[0] !== DEFLATE_WITH_DICTIONARY_1) {
    throw new TypeError(`compressed JSON: unknown codec ${String(bytes[0])}`);
  }
  const inflated = inflateRawSync(bytes.subarray(1), { dictionary: DICTIONARY_1 });
  return JSON.parse(inflated.toString('utf8')) as T;
}
