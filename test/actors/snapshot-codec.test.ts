import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { encodeConversation, restoreConversation } from '../../src/actors/snapshot-codec.js';
import type { JsonObject } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import {
  answerCheckpointsAtOnce,
  CONVERSATION_MACHINE_VERSION,
  type ConversationSettings,
} from '../../src/machines/index.js';
import { ScriptedModel, callReply, callTools } from '../../src/model/index.js';
import type { HistoryRecord, SourceHead } from '../../src/persistence/source-store.js';
import { defineTool } from '../../src/tools/index.js';
import {
  conversationMachineFor,
  inbound,
  RecordingDelivery,
  sayAndWait,
  userSource,
} from '../support/conversation-harness.js';

const loopTool = defineTool({
  name: 'think',
  description: 'Thinks.',
  category: 'test',
  optional: true,
  sideEffects: false,
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  response: { type: 'object', properties: {} },
}).implement(() => Promise.resolve({ forLLM: {} }));

function headOf(
  snapshot: JsonObject,
  lastSeq: number,
  machineVersion = CONVERSATION_MACHINE_VERSION,
): SourceHead {
  return {
    sourceId: userSource.id,
    version: 3,
    fence: 1,
    machineVersion,
    snapshot,
    lastSeq,
    busy: false,
    updatedAt: 0,
  };
}

/** A conversation restored from a head and records, started, its checkpoints answered at once. */
function restore(
  model: ScriptedModel,
  settings: Partial<ConversationSettings>,
  head: SourceHead | undefined,
  history: readonly HistoryRecord[],
) {
  const machine = conversationMachineFor({ model, delivery: new RecordingDelivery(), tools: [loopTool] });
  const { actor, replay } = restoreConversation({
    machine,
    source: userSource,
    settings,
    head,
    history,
    logger: silentLogger,
  });
  answerCheckpointsAtOnce(actor).start();
  return { actor, replay };
}

describe('snapshot codec', () => {
  it('persists neither settings nor history; a setting changed between save and restore applies', async () => {
    const first = restore(new ScriptedModel([callReply('hi')]), { maxModelCalls: 10 }, undefined, []);
    await sayAndWait(first.actor, inbound('hello'));
    const encoded = encodeConversation(first.actor, 0);
    first.actor.stop();

    expect(encoded.snapshot.context).not.toHaveProperty('settings');
    expect(encoded.snapshot.context).not.toHaveProperty('history');
    expect(encoded.appended.map((record) => [record.seq, record.entry.role])).toEqual([
      [1, 'user'],
      [2, 'model'],
      [3, 'tool'],
    ]);
    expect(encoded.appended[0]?.entry).not.toHaveProperty('seq');

    const model = new ScriptedModel([callTools(['think', {}])], { repeatLast: true });
    const second = restore(
      model,
      { maxModelCalls: 3 },
      headOf(JSON.parse(JSON.stringify(encoded.snapshot)) as JsonObject, encoded.lastSeq),
      encoded.appended,
    );
    expect(second.actor.getSnapshot().context.settings.maxModelCalls).toBe(3);
    const snapshot = await sayAndWait(second.actor, inbound('loop'));

    expect(model.calls).toHaveLength(3);
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-call-limit');
    expect(model.calls[0]?.history.map((entry) => entry.role)).toEqual(['user', 'model', 'tool', 'user']);
  });

  it('writes only the entries above the last saved seq', async () => {
    const { actor } = restore(new ScriptedModel([callReply('ok')], { repeatLast: true }), {}, undefined, []);
    await sayAndWait(actor, inbound('one'));
    const saved = encodeConversation(actor, 0).lastSeq;
    await sayAndWait(actor, inbound('two'));

    const encoded = encodeConversation(actor, saved);
    expect(encoded.appended.map((record) => record.seq)).toEqual([4, 5, 6]);
    expect(encoded.busy).toBe(false);
  });

  it('continues the seq numbers above the head even when the loaded window is empty', () => {
    const head = headOf(
      encodeConversation(restore(new ScriptedModel([]), {}, undefined, []).actor, 0).snapshot,
      41,
    );
    const { actor } = restore(new ScriptedModel([]), {}, head, []);
    expect(actor.getSnapshot().context.lastSeq).toBe(41);
  });

  it('migrates a first-wave snapshot: inline history becomes entries, queued messages run again', async () => {
    const queued = inbound('queued before the deploy');
    const firstWave = {
      status: 'active',
      value: 'idle',
      context: {
        source: userSource,
        settings: { maxModelCalls: 10 },
        history: [
          { role: 'user', eventId: 'e-1', text: 'before the deploy', timestamp: 1 },
          { role: 'model', turnId: 'e-1', calls: [] },
        ],
        pending: [[queued]],
        turn: null,
        recentEventIds: ['e-1'],
        profiles: {},
        usage: [{ at: 1, modelCalls: 1, tokens: 10 }],
      },
      children: {},
    };
    const { actor, replay } = restore(
      new ScriptedModel([callReply('ok')]),
      {},
      headOf(firstWave as unknown as JsonObject, 0, 1),
      [],
    );

    expect(replay).toEqual([queued]);
    expect(actor.getSnapshot().context.history.map((entry) => [entry.seq, entry.role])).toEqual([
      [1, 'user'],
      [2, 'model'],
    ]);
    expect(encodeConversation(actor, 0).appended).toHaveLength(2);
    await waitFor(actor, (snapshot) => snapshot.matches('idle'));
  });

  it('starts at idle with its history when the stored state no longer exists', () => {
    const thinking = { status: 'active', value: 'thinking', context: { source: userSource } };
    const head = headOf(thinking as unknown as JsonObject, 2);
    const history: HistoryRecord[] = [
      { seq: 1, entry: { role: 'user', eventId: 'e-1', text: 'hi', timestamp: 1 } },
      { seq: 2, entry: { role: 'model', turnId: 'e-1', calls: [] } },
    ];
    const { actor } = restore(new ScriptedModel([]), {}, head, history);

    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.history).toHaveLength(2);
  });
});
