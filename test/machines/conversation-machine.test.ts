import { createActor, waitFor } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { CONVERSATION_SYSTEM_ID, conversationMachine } from '../../src/machines/index.js';
import { ScriptedModel, callReply, callTools, textOnly } from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';
import {
  conversationMachineFor,
  idleWithNothingPending,
  inbound,
  RecordingDelivery,
  restoreConversation,
  startConversation,
  userSource,
} from '../support/conversation-harness.js';

const echoSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
} as const;

/** A test tool taking and giving `{ text }`. */
function echoTool(name: string) {
  return defineTool({
    name,
    description: `test tool ${name}`,
    category: 'test',
    optional: true,
    parameters: echoSchema,
    response: echoSchema,
  });
}

/** A tool that records when it starts and finishes, and waits until released. */
function gatedTool(name: string, log: string[], gate: Promise<void> = Promise.resolve()) {
  return echoTool(name).implement(async (args) => {
    log.push(`start ${name}`);
    await gate;
    log.push(`end ${name}`);
    return { forLLM: { text: `${name}:${args.text}` } };
  });
}

describe('conversation machine', () => {
  it('walks receive → generate → toolCall → done → idle and delivers the reply with the reply token', async () => {
    const { actor, delivery, states } = startConversation({
      model: new ScriptedModel([callReply('Hello Aiko')]),
    });
    const message = inbound('hi');

    actor.send({ type: 'line.message', message });
    const snapshot = await idleWithNothingPending(actor);

    expect(states).toEqual([
      '"idle"',
      '"receive"',
      '"generate"',
      '{"toolCall":"running"}',
      '{"toolCall":"delivering"}',
      '{"toolCall":"deciding"}',
      '"done"',
      '"idle"',
    ]);
    expect(delivery.requests).toEqual([
      expect.objectContaining({
        texts: ['Hello Aiko'],
        replyToken: message.replyToken,
        index: 0,
        turnId: message.eventId,
      }),
    ]);
    expect(snapshot.context.history.map((entry) => entry.role)).toEqual(['user', 'model', 'tool']);
    expect(snapshot.context.history[2]).toMatchObject({
      results: [{ name: 'reply', response: { status: 'sent' } }],
    });
    expect(snapshot.context.lastTurn).toMatchObject({
      id: message.eventId,
      stopReason: 'final-tool',
      modelCalls: 1,
    });
  });

  it('ends the turn without sending anything when the model returns text and no calls', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([textOnly('I think I will stay quiet')]),
    });

    actor.send({ type: 'line.message', message: inbound('hmm') });
    const snapshot = await idleWithNothingPending(actor);

    expect(delivery.requests).toEqual([]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('no-function-calls');
    expect(snapshot.context.history.at(-1)).toMatchObject({
      role: 'model',
      text: 'I think I will stay quiet',
    });
  });

  it('ends the turn after skip without delivering', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([callTools(['skip', { reason: 'not for me' }])]),
    });

    actor.send({ type: 'line.message', message: inbound('talking to Ken') });
    const snapshot = await idleWithNothingPending(actor);

    expect(delivery.requests).toEqual([]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('final-tool');
  });

  it('stops at the model-call limit', async () => {
    const model = new ScriptedModel([callTools(['echo', { text: 'again' }])], { repeatLast: true });
    const { actor } = startConversation({
      model,
      tools: [gatedTool('echo', [])],
      settings: { maxModelCalls: 3 },
    });

    actor.send({ type: 'line.message', message: inbound('loop forever') });
    const snapshot = await idleWithNothingPending(actor);

    expect(model.calls).toHaveLength(3);
    expect(snapshot.context.lastTurn).toMatchObject({ stopReason: 'model-call-limit', modelCalls: 3 });
  });

  it('runs the calls of one response in parallel and keeps their results in call order', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = new ScriptedModel([
      callTools(['slow_a', { text: '1' }], ['slow_b', { text: '2' }]),
      callReply('done'),
    ]);
    const { actor } = startConversation({
      model,
      tools: [gatedTool('slow_a', log, gate), gatedTool('slow_b', log, gate)],
    });

    actor.send({ type: 'line.message', message: inbound('go') });
    await vi.waitFor(() => expect(log).toHaveLength(2));
    expect(log).toEqual(['start slow_a', 'start slow_b']);
    release();
    const snapshot = await idleWithNothingPending(actor);

    const toolEntry = snapshot.context.history.find((entry) => entry.role === 'tool');
    expect(toolEntry).toMatchObject({
      results: [
        { name: 'slow_a', response: { text: 'slow_a:1' } },
        { name: 'slow_b', response: { text: 'slow_b:2' } },
      ],
    });
    expect(model.calls[1]?.history.at(-1)).toEqual(toolEntry);
  });

  it('refuses a second reply in the same turn with an error the model sees', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([callTools(['reply', { message: 'one' }], ['reply', { message: 'two' }])]),
    });

    actor.send({ type: 'line.message', message: inbound('say it twice') });
    const snapshot = await idleWithNothingPending(actor);

    expect(delivery.texts).toEqual(['one']);
    expect(snapshot.context.history.at(-1)).toMatchObject({
      results: [
        { response: { status: 'sent' } },
        { response: { error: expect.stringContaining('only once') as string } },
      ],
    });
  });

  it('tells the model about invalid reply arguments and lets it try again', async () => {
    const model = new ScriptedModel([callTools(['reply', { message: '' }]), callReply('fixed')]);
    const { actor, delivery } = startConversation({ model });

    actor.send({ type: 'line.message', message: inbound('hi') });
    await idleWithNothingPending(actor);

    expect(model.calls[1]?.history.at(-1)).toMatchObject({
      results: [{ response: { error: expect.stringContaining('invalid arguments') as string } }],
    });
    expect(delivery.texts).toEqual(['fixed']);
  });

  it('apologises when the model fails for good', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([new Error('503 from the model')]),
    });

    actor.send({ type: 'line.message', message: inbound('hello?') });
    const snapshot = await idleWithNothingPending(actor);

    expect(delivery.texts).toEqual([expect.stringContaining('Sorry') as string]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
  });

  it('records a failed delivery as an error in the reply response', async () => {
    const delivery = new RecordingDelivery();
    delivery.failNext = 1;
    const model = new ScriptedModel([callReply('lost?'), textOnly('ok, giving up')]);
    const { actor } = startConversation({ model, delivery });

    actor.send({ type: 'line.message', message: inbound('hi') });
    const snapshot = await idleWithNothingPending(actor);

    expect(model.calls[1]?.history.at(-1)).toMatchObject({
      results: [{ name: 'reply', response: { error: 'the message could not be delivered' } }],
    });
    expect(snapshot.context.lastTurn?.stopReason).toBe('no-function-calls');
  });

  it('uses the reply token on the first delivery only and pushes later ones', async () => {
    const model = new ScriptedModel([
      callTools(['notify', { text: 'working on it' }]),
      callReply('finished'),
    ]);
    const notify = echoTool('notify').implement((args) =>
      Promise.resolve({ forLLM: { text: 'shown' }, forUser: args.text }),
    );
    const { actor, delivery } = startConversation({ model, tools: [notify] });

    actor.send({ type: 'line.message', message: inbound('long job') });
    await idleWithNothingPending(actor);

    expect(delivery.requests.map((request) => [request.index, request.texts, !!request.replyToken])).toEqual([
      [0, ['working on it'], true],
      [1, ['finished'], false],
    ]);
  });

  it.each<[string, { forUser: string; silent?: boolean }, string[]]>([
    ['the same text as the reply', { forUser: 'It is sunny.' }, ['It is sunny.']],
    ['silent text', { forUser: 'internal note', silent: true }, ['It is sunny.']],
    ['its own text', { forUser: 'Fetching the forecast…' }, ['Fetching the forecast…', 'It is sunny.']],
  ])(
    'a tool with %s in the same step as reply: the user never gets one content twice',
    async (_case, result, texts) => {
      const tool = echoTool('forecast').implement(() =>
        Promise.resolve({ ...result, forLLM: { text: 'ok' } }),
      );
      const model = new ScriptedModel([
        callTools(['forecast', { text: 'x' }], ['reply', { message: 'It is sunny.' }]),
      ]);
      const { actor, delivery } = startConversation({ model, tools: [tool] });

      actor.send({ type: 'line.message', message: inbound('weather?') });
      await idleWithNothingPending(actor);

      expect(delivery.requests).toHaveLength(1);
      expect(delivery.texts).toEqual(texts);
    },
  );

  it('queues messages that arrive during a turn and runs them as turns in order', async () => {
    const model = new ScriptedModel([(request) => callReply(`re: ${lastUserText(request.history)}`)], {
      repeatLast: true,
    });
    const { actor, delivery } = startConversation({ model });

    for (const text of ['one', 'two', 'three']) actor.send({ type: 'line.message', message: inbound(text) });
    await idleWithNothingPending(actor);

    expect(delivery.texts).toEqual(['re: one', 're: two', 're: three']);
  });

  it('merges messages that arrive during a turn into one next turn under the merge policy', async () => {
    const model = new ScriptedModel([(request) => callReply(`re: ${userTextsOfTurn(request.history)}`)], {
      repeatLast: true,
    });
    const { actor, delivery } = startConversation({ model, settings: { queuePolicy: 'merge' } });

    for (const text of ['one', 'two', 'three']) actor.send({ type: 'line.message', message: inbound(text) });
    await idleWithNothingPending(actor);

    expect(delivery.texts).toEqual(['re: one', 're: two+three']);
  });

  it('merges the newest messages into the last queued turn beyond the queue cap', async () => {
    const model = new ScriptedModel([(request) => callReply(`re: ${userTextsOfTurn(request.history)}`)], {
      repeatLast: true,
    });
    const { actor, delivery } = startConversation({ model, settings: { maxQueuedTurns: 2 } });

    for (const text of ['a', 'b', 'c', 'd', 'e'])
      actor.send({ type: 'line.message', message: inbound(text) });
    await idleWithNothingPending(actor);

    // 'a' starts at once; 'b' and 'c' fill the queue; 'd' and 'e' join 'c'.
    expect(delivery.texts).toEqual(['re: a', 're: b', 're: c+d+e']);
  });

  it('keeps history bounded over many turns, whole exchanges only', async () => {
    const model = new ScriptedModel([callReply('ok')], { repeatLast: true });
    const { actor } = startConversation({
      model,
      settings: { maxHistoryEntries: 12, maxHistoryBytes: 64 * 1024, maxModelCallsPerMinute: 0 },
    });

    for (let turn = 0; turn < 40; turn++) {
      actor.send({ type: 'line.message', message: inbound(`message ${turn}`) });
      await idleWithNothingPending(actor);
    }

    const { history } = actor.getSnapshot().context;
    expect(history.length).toBeLessThanOrEqual(12);
    expect(history[0]?.role).toBe('user');
    expect(history.map((entry) => entry.role).slice(-3)).toEqual(['user', 'model', 'tool']);
    expect(history.findLast((entry) => entry.role === 'user')).toMatchObject({ text: 'message 39' });
  });

  it('answers with a short notice, not silence, once the per-minute model-call limit is reached', async () => {
    const model = new ScriptedModel([callReply('answer')], { repeatLast: true });
    const { actor, delivery } = startConversation({ model, settings: { maxModelCallsPerMinute: 2 } });

    for (const text of ['one', 'two', 'three']) {
      actor.send({ type: 'line.message', message: inbound(text) });
      await idleWithNothingPending(actor);
    }

    expect(model.calls).toHaveLength(2);
    expect(delivery.texts).toEqual([
      'answer',
      'answer',
      expect.stringContaining('a lot of messages') as string,
    ]);
    expect(actor.getSnapshot().context.lastTurn?.stopReason).toBe('limit-reached');
  });

  it('stops calling the model once the daily token budget is spent', async () => {
    const costly = {
      ...callReply('long answer'),
      usage: { promptTokens: 900, outputTokens: 200, cachedTokens: 0 },
    };
    const model = new ScriptedModel([costly], { repeatLast: true });
    const { actor, delivery } = startConversation({ model, settings: { dailyTokenBudget: 1000 } });

    for (const text of ['first', 'second']) {
      actor.send({ type: 'line.message', message: inbound(text) });
      await idleWithNothingPending(actor);
    }

    expect(model.calls).toHaveLength(1);
    expect(delivery.texts[1]).toContain('a lot of messages');
    expect(actor.getSnapshot().context.usage).toEqual([
      expect.objectContaining({ modelCalls: 1, tokens: 1100 }),
      expect.objectContaining({ modelCalls: 0, tokens: 0 }),
    ]);
  });

  it('ignores a message whose event id it has already seen', async () => {
    const model = new ScriptedModel([callReply('once')], { repeatLast: true });
    const { actor, delivery } = startConversation({ model });
    const message = inbound('hi');

    actor.send({ type: 'line.message', message });
    actor.send({ type: 'line.message', message });
    await idleWithNothingPending(actor);

    expect(delivery.texts).toEqual(['once']);
    expect(model.calls).toHaveLength(1);
  });
});

describe('conversation snapshots', () => {
  it('round-trips through JSON at idle', async () => {
    const { actor } = startConversation({ model: new ScriptedModel([callReply('hi')]) });
    actor.send({ type: 'line.message', message: inbound('hello') });
    await idleWithNothingPending(actor);

    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    const delivery = new RecordingDelivery();
    const machine = conversationMachineFor({ model: new ScriptedModel([callReply('again')]), delivery });
    const restored = restoreConversation(machine, json);
    restored.send({ type: 'line.message', message: inbound('second') });
    const snapshot = await idleWithNothingPending(restored);

    expect(snapshot.context.history.map((entry) => entry.role)).toEqual([
      'user',
      'model',
      'tool',
      'user',
      'model',
      'tool',
    ]);
    expect(delivery.texts).toEqual(['again']);
  });

  it('resumes a turn restored while the model call was in flight, replying once', async () => {
    const neverAnswers = new ScriptedModel([() => new Promise(() => {})]);
    const { actor, delivery: firstDelivery } = startConversation({ model: neverAnswers });
    const message = inbound('are you there?');
    actor.send({ type: 'line.message', message });
    await waitFor(actor, (snapshot) => snapshot.matches('generate'));

    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop(); // the process "crashes"
    const delivery = new RecordingDelivery();
    const model = new ScriptedModel([callReply('yes, back again')]);
    const restored = restoreConversation(conversationMachineFor({ model, delivery }), json);
    const snapshot = await idleWithNothingPending(restored);

    expect(firstDelivery.requests).toEqual([]);
    expect(delivery.requests).toEqual([
      expect.objectContaining({ texts: ['yes, back again'], turnId: message.eventId }),
    ]);
    expect(model.calls).toHaveLength(1);
    expect(snapshot.context.history.filter((entry) => entry.role === 'user')).toHaveLength(1);
  });

  it('re-runs only the tool calls without a recorded result after a restore', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([callTools(['fast', { text: 'x' }], ['stuck', { text: 'y' }])]);
    const { actor } = startConversation({
      model,
      tools: [gatedTool('fast', log), gatedTool('stuck', log, new Promise(() => {}))],
    });
    actor.send({ type: 'line.message', message: inbound('do both') });
    await waitFor(actor, (snapshot) => snapshot.context.turn?.step.some((entry) => entry.outcome) ?? false);

    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    const rerunLog: string[] = [];
    const restored = restoreConversation(
      conversationMachineFor({
        model: new ScriptedModel([callReply('both done')]),
        delivery: new RecordingDelivery(),
        tools: [gatedTool('fast', rerunLog), gatedTool('stuck', rerunLog)],
      }),
      json,
    );
    const snapshot = await idleWithNothingPending(restored);

    expect(log.sort()).toEqual(['end fast', 'start fast', 'start stuck']);
    expect(rerunLog).toEqual(['start stuck', 'end stuck']);
    expect(snapshot.context.history.find((entry) => entry.role === 'tool')).toMatchObject({
      results: [{ response: { text: 'fast:x' } }, { response: { text: 'stuck:y' } }],
    });
  });

  it('is plain JSON: the persisted snapshot survives stringify unchanged', async () => {
    const { actor } = startConversation({ model: new ScriptedModel([callReply('hi')]) });
    actor.send({ type: 'line.message', message: inbound('hello') });
    await idleWithNothingPending(actor);
    const persisted = actor.getPersistedSnapshot();

    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted);
  });

  it('fails loudly when an actor was not provided', async () => {
    const actor = createActor(conversationMachine, {
      systemId: CONVERSATION_SYSTEM_ID,
      input: { source: userSource },
    });
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    actor.send({ type: 'line.message', message: inbound('hi') });
    // The checkpoint fails, the turn goes on, the model call fails: the machine apologises, which fails too.
    const snapshot = await idleWithNothingPending(actor);

    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(errors).toEqual([]);
  });
});

function lastUserText(history: readonly { role: string; text?: string }[]): string {
  return history.findLast((entry) => entry.role === 'user')?.text ?? '';
}

function userTextsOfTurn(history: readonly { role: string; text?: string }[]): string {
  const texts: string[] = [];
  for (let index = history.length - 1; index >= 0 && history[index]?.role === 'user'; index--) {
    texts.unshift(history[index]?.text ?? '');
  }
  return texts.join('+');
}
