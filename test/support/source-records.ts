import type { HistoryEntry, InboundMessage, JsonObject } from '../../src/domain/index.js';
import type {
  Checkpoint,
  HistoryRecord,
  Ownership,
  SourceOwner,
} from '../../src/persistence/source-store.js';

// Builders for the store tests: history records of a simple reply turn, owners and checkpoints.

export function userRecord(seq: number, text = `message ${seq}`, eventId = `event-${seq}`): HistoryRecord {
  return { seq, entry: { role: 'user', eventId, text, timestamp: 1_700_000_000_000 + seq } };
}

/**
 * The model's reply call as Gemini returns it: the call, and the provider parts that carry a
 * thought signature (base64 of random bytes, so that it does not compress: ~`signatureBytes`).
 */
export function modelRecord(
  seq: number,
  options: { text?: string; signatureBytes?: number } = {},
): HistoryRecord {
  const turnId = `turn-${seq}`;
  const args: JsonObject = { message: options.text ?? `reply ${seq}` };
  const signature = randomBase64(options.signatureBytes ?? 0);
  return {
    seq,
    entry: {
      role: 'model',
      turnId,
      calls: [{ id: `${turnId}#1.0`, name: 'reply', args }],
      ...(signature && {
        providerParts: [{ functionCall: { name: 'reply', args }, thoughtSignature: signature }],
      }),
    },
  };
}

/** The closing tool entry of a reply: the sent marker's record. */
export function toolRecord(seq: number): HistoryRecord {
  const turnId = `turn-${seq - 1}`;
  return {
    seq,
    entry: {
      role: 'tool',
      turnId,
      results: [{ callId: `${turnId}#1.0`, name: 'reply', response: { status: 'sent' } }],
    },
  };
}

/** `signatureBytes` of base64 text (what Gemini's thoughtSignature is), from random bytes. */
export function randomBase64(signatureBytes: number): string {
  if (signatureBytes <= 0) return '';
  const bytes = new Uint8Array(Math.ceil((signatureBytes * 3) / 4));
  for (let index = 0; index < bytes.length; index++) bytes[index] = Math.floor(Math.random() * 256);
  return Buffer.from(bytes).toString('base64').slice(0, signatureBytes);
}

export function entries(records: readonly HistoryRecord[]): HistoryEntry[] {
  return records.map((record) => record.entry);
}

export function owner(name: string, overrides: Partial<SourceOwner> = {}): SourceOwner {
  return {
    ownerId: `${name}-owner`,
    host: 'test-host',
    pid: 1000,
    heartbeatAt: Date.now(),
    leaseMs: 30_000,
    ...overrides,
  };
}

export function checkpointOf(
  ownership: Ownership,
  expectedVersion: number,
  overrides: Partial<Omit<Checkpoint, 'ownership' | 'expectedVersion'>> = {},
): Checkpoint {
  return {
    ownership,
    expectedVersion,
    machineVersion: 2,
    snapshot: { status: 'active', value: 'idle', context: { note: `v${expectedVersion + 1}` } },
    busy: false,
    appended: [],
    removedSeqs: [],
    consumedKeys: [],
    ...overrides,
  };
}

export function messageFor(
  sourceId: string,
  eventId: string,
  timestamp: number,
  text = 'hi',
): InboundMessage {
  return { eventId, source: { kind: 'user', id: sourceId }, text, timestamp };
}
