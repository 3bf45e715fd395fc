import { createActor, waitFor } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import {
  answerCheckpointsAtOnce,
  AWAITING_CHECKPOINT_TAG,
  CONVERSATION_SYSTEM_ID,
  conversationMachine,
} from '../../src/machines/index.js';
import { ScriptedModel, callReply, callTools, textOnly } from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';
import {
  conversationMachineFor,
  inbound,
  RecordingDelivery,
  restoreConversation,
  say,
  sayAndWait,
  startConversation,
  untilIdle,
  userSource,
} from '../support/conversation-harness.js';
import { userTexts } from '../support/host-harness.js';

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

    say(actor, message);
    const snapshot = await untilIdle(actor);

    expect(states).toEqual([
      '"idle"',
      '"receive"',
      '"generate"',
      '{"toolCall":"starting"}',
      '{"toolCall":"running"}',
      '{"toolCall":{"delivering":"securing"}}',
      '{"toolCall":{"delivering":"sending"}}',
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
      replied: true,
      deliveries: 1,
    });
  });

  it('apologises when the model answers with text and no call before any `reply` or `skip`: the user is never left in silence', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([textOnly('I think I will stay quiet')]),
    });
    const message = inbound('hmm');

    say(actor, message);
    const snapshot = await untilIdle(actor);

    // The notice goes out as the reply (the token is unused), and the turn says why it came.
    expect(delivery.requests).toMatchObject([
      { texts: [expect.stringContaining('Sorry') as string], replyToken: message.replyToken },
    ]);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'no-function-calls',
      replied: false,
      deliveries: 1,
    });
    expect(snapshot.context.history.at(-1)).toMatchObject({
      role: 'model',
      text: 'I think I will stay quiet',
    });
  });

  it('apologises when the model ends with text after a tool that said nothing to the user', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([callTools(['lookup', { text: 'x' }]), textOnly('done looking')]),
      tools: [echoTool('lookup').implement((args) => Promise.resolve({ forLLM: { text: args.text } }))],
    });

    say(actor, inbound('look it up'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual([expect.stringContaining('Sorry') as string]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('no-function-calls');
  });

  it('ends the turn after skip without delivering', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([callTools(['skip', { reason: 'not for me' }])]),
    });

    say(actor, inbound('talking to Ken'));
    const snapshot = await untilIdle(actor);

    expect(delivery.requests).toEqual([]);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'final-tool',
      replied: false,
      deliveries: 0,
    });
  });

  it('records a message its host set aside as the last turn, without running one', () => {
    const model = new ScriptedModel([callReply('never asked')]);
    const { actor, delivery } = startConversation({ model });

    actor.send({ type: 'message.quarantined', eventId: 'poison-1', at: 1_700_000_000_000, noticeSent: true });
    const snapshot = actor.getSnapshot();

    expect(snapshot.value).toBe('idle');
    expect(model.calls).toEqual([]);
    expect(delivery.requests).toEqual([]);
    expect(snapshot.context.history).toEqual([]);
    expect(snapshot.context.lastTurn).toEqual({
      id: 'poison-1',
      stopReason: 'quarantined',
      modelCalls: 0,
      usage: { promptTokens: 0, outputTokens: 0, cachedTokens: 0 },
      startedAt: 1_700_000_000_000,
      replied: false,
      deliveries: 1,
      noticeSent: true,
    });
  });

  it('stops at the model-call limit, and apologises when no reply went out by then', async () => {
    const model = new ScriptedModel([callTools(['echo', { text: 'again' }])], { repeatLast: true });
    const { actor, delivery } = startConversation({
      model,
      tools: [gatedTool('echo', [])],
      settings: { maxModelCalls: 3 },
    });

    say(actor, inbound('loop forever'));
    const snapshot = await untilIdle(actor);

    expect(model.calls).toHaveLength(3);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'model-call-limit',
      modelCalls: 3,
      replied: false,
      deliveries: 1,
    });
    // Not silence: the user is told the bot could not answer.
    expect(delivery.texts).toEqual([expect.stringContaining('Sorry') as string]);
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

    say(actor, inbound('go'));
    await vi.waitFor(() => expect(log).toHaveLength(2));
    expect(log).toEqual(['start slow_a', 'start slow_b']);
    release();
    const snapshot = await untilIdle(actor);

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

    say(actor, inbound('say it twice'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual(['one']);
    expect(snapshot.context.history.at(-1)).toMatchObject({
      results: [
        { response: { status: 'sent' } },
        { response: { error: expect.stringContaining('only once') as string } },
      ],
    });
  });

  // Gemini often calls an action and `reply` in one response ("Done, I will remind you!"), or in
  // a group the action and `skip` ("nothing to add"): either was decided before the action's
  // result, and went out (or left the failure unsaid) though the action failed.
  it.each([
    [
      'a reply written',
      ['reply', { message: 'Done, I will remind you!' }],
      'not sent: remind failed beside it; reply again with its result in mind',
    ],
    [
      'a skip decided',
      ['skip', { reason: 'nothing to add' }],
      'not taken: remind failed beside it; decide again with its result in mind',
    ],
  ] as const)(
    'holds back %s beside a call that failed: the model answers again knowing the failure',
    async (_case, finalCall, heldBack) => {
      const remind = echoTool('remind').implement(() =>
        Promise.resolve({ forLLM: { error: 'that time has already passed' }, isError: true }),
      );
      const model = new ScriptedModel([
        callTools(['remind', { text: 'yesterday' }], [finalCall[0], { ...finalCall[1] }]),
        callReply('That time has passed: when should I remind you?'),
      ]);
      const { actor, delivery } = startConversation({ model, tools: [remind] });

      say(actor, inbound('remind me yesterday'));
      await untilIdle(actor);

      expect(delivery.texts).toEqual(['That time has passed: when should I remind you?']);
      const results = model.calls[1]!.history.findLast((entry) => entry.role === 'tool')!;
      expect(results.role === 'tool' && results.results.map((result) => result.response)).toEqual([
        { error: 'that time has already passed' },
        { error: heldBack },
      ]);
    },
  );

  it('sends a reply written beside calls that all succeeded at once', async () => {
    const model = new ScriptedModel([
      callTools(['echo', { text: 'noted' }], ['reply', { message: 'Noted.' }]),
    ]);
    const { actor, delivery } = startConversation({ model, tools: [sideEffectTool('echo', [])] });

    say(actor, inbound('note it'));
    await untilIdle(actor);

    expect(model.calls).toHaveLength(1);
    expect(delivery.texts).toEqual(['Noted.']);
  });

  it('runs at most 16 calls of one model response; the rest are answered as errors the model sees', async () => {
    // A model told (or tricked) to call a tool 200 times in one response would send 200
    // requests out at once; every call still gets an answer, so history keeps Gemini's rules.
    let runs = 0;
    const counted = echoTool('count').implement((args) => {
      runs++;
      return Promise.resolve({ forLLM: { text: args.text } });
    });
    const calls = Array.from({ length: 200 }, (_, index): [string, { text: string }] => [
      'count',
      { text: String(index) },
    ]);
    const model = new ScriptedModel([callTools(...calls), callReply('counted')]);
    const { actor, delivery } = startConversation({ model, tools: [counted] });

    say(actor, inbound('count to 200'));
    await untilIdle(actor);

    expect(runs).toBe(16);
    const results = model.calls[1]!.history.findLast((entry) => entry.role === 'tool')!;
    expect(results.role === 'tool' && results.results).toHaveLength(200);
    expect(results.role === 'tool' && results.results[16]).toMatchObject({
      response: { error: 'not run: at most 16 calls of one response run; call the rest in the next step' },
    });
    expect(delivery.texts).toEqual(['counted']);
  });

  it("keeps at most 256 KB of one step's results; a result past that is its call's error", async () => {
    // The step's results are one history entry, stored whole (one DynamoDB item): each result
    // may be under its own limit and all of them together still too large.
    const big = defineTool({
      name: 'big',
      description: 'test tool big',
      category: 'test',
      optional: true,
      maxResultBytes: 128 * 1024,
      parameters: echoSchema,
      response: echoSchema,
    }).implement(() => Promise.resolve({ forLLM: { text: 'x'.repeat(100 * 1024) } }));
    const calls = Array.from({ length: 4 }, (_, index): [string, { text: string }] => [
      'big',
      { text: String(index) },
    ]);
    const model = new ScriptedModel([callTools(...calls), callReply('read')]);
    const { actor, delivery } = startConversation({ model, tools: [big] });

    say(actor, inbound('read four'));
    await untilIdle(actor);

    const entry = model.calls[1]!.history.findLast((candidate) => candidate.role === 'tool')!;
    const results = entry.role === 'tool' ? entry.results.map((result) => result.response) : [];
    expect(results.map((response) => (typeof response.text === 'string' ? 'kept' : response.error))).toEqual([
      'kept',
      'kept',
      'tool "big" returned 101 KB, more than this step\'s results may still hold (256 KB in all, 201 KB taken): call it again in the next step',
      'tool "big" returned 101 KB, more than this step\'s results may still hold (256 KB in all, 201 KB taken): call it again in the next step',
    ]);
    expect(delivery.texts).toEqual(['read']);
  });

  it('tells the model about invalid reply arguments and lets it try again', async () => {
    const model = new ScriptedModel([callTools(['reply', { message: '' }]), callReply('fixed')]);
    const { actor, delivery } = startConversation({ model });

    say(actor, inbound('hi'));
    await untilIdle(actor);

    expect(model.calls[1]?.history.at(-1)).toMatchObject({
      results: [{ response: { error: expect.stringContaining('invalid arguments') as string } }],
    });
    expect(delivery.texts).toEqual(['fixed']);
  });

  it("ends with the model's text, and no apology, once a tool's own message reached the user", async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([callTools(['announce', { text: 'x' }]), textOnly('that was all')]),
      tools: [
        echoTool('announce').implement(() =>
          Promise.resolve({ forLLM: { text: 'sent' }, forUser: 'Heads up!' }),
        ),
      ],
    });

    say(actor, inbound('tell everyone'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual(['Heads up!']);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'no-function-calls',
      deliveries: 1,
      noticeSent: false,
    });
  });

  it('apologises when the model gives up with text after its reply was refused: nothing reached the user', async () => {
    const model = new ScriptedModel([callTools(['reply', { message: '' }]), textOnly('never mind')]);
    const { actor, delivery } = startConversation({ model });

    say(actor, inbound('hi'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual([expect.stringContaining('Sorry') as string]);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'no-function-calls',
      deliveries: 1,
      noticeSent: true,
    });
  });

  it('delivers a reminder due as its own text when the model fails, and apologises for the message beside it', async () => {
    // A reminder's turn whose model failed got the apology ("I cannot answer right now") for
    // a question nobody asked, and the reminder itself was lost.
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([new Error('503 from the model')], { repeatLast: true }),
    });

    say(actor, inbound('[reminder due] stretch', { lineEvent: 'reminder', replyToken: undefined }));
    await untilIdle(actor);
    expect(delivery.texts).toEqual(['⏰ stretch']);

    say(
      actor,
      inbound('[reminder due] drink water', { lineEvent: 'reminder', replyToken: undefined }),
      inbound('and what about lunch?'),
    );
    await untilIdle(actor);
    expect(delivery.texts.slice(1)).toEqual(['⏰ drink water', expect.stringContaining('Sorry') as string]);
  });

  it('says a reminder due came late when it goes out without the model', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([new Error('503 from the model')], { repeatLast: true }),
    });
    const firedAt = Date.now();

    say(
      actor,
      inbound('[reminder due] take the medicine', {
        lineEvent: 'reminder',
        replyToken: undefined,
        timestamp: firedAt,
        dueAt: firedAt - 3 * 3_600_000,
      }),
    );
    await untilIdle(actor);
    say(
      actor,
      inbound('[reminder due] stretch', {
        lineEvent: 'reminder',
        replyToken: undefined,
        timestamp: firedAt,
        dueAt: firedAt - 30_000,
      }),
    );
    await untilIdle(actor);

    expect(delivery.texts).toEqual(['⏰ take the medicine (late: it was due 3 hours ago)', '⏰ stretch']);
  });

  it('apologises when the model fails for good', async () => {
    const { actor, delivery } = startConversation({
      model: new ScriptedModel([new Error('503 from the model')]),
    });

    say(actor, inbound('hello?'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual([expect.stringContaining('Sorry') as string]);
    expect(snapshot.context.lastTurn).toMatchObject({
      stopReason: 'model-failed',
      replied: false,
      deliveries: 1,
    });
  });

  it('records a failed delivery as an error in the reply response', async () => {
    const delivery = new RecordingDelivery();
    delivery.failNext = 1;
    const model = new ScriptedModel([callReply('lost?'), textOnly('ok, giving up')]);
    const { actor } = startConversation({ model, delivery });

    say(actor, inbound('hi'));
    const snapshot = await untilIdle(actor);

    expect(model.calls[1]?.history.at(-1)).toMatchObject({
      results: [{ name: 'reply', response: { error: 'the message could not be delivered' } }],
    });
    expect(snapshot.context.lastTurn?.stopReason).toBe('no-function-calls');
    // Nothing reached the user: the apology goes out.
    expect(delivery.requests.at(-1)?.texts).toEqual([expect.stringContaining('Sorry') as string]);
  });

  it('keeps the delivery slot after a failure: the next try has the same index (retry key) and knows it is a retry', async () => {
    const delivery = new RecordingDelivery();
    delivery.failNext = 1;
    const model = new ScriptedModel([callReply('first try'), callReply('second try'), textOnly('done')]);
    const { actor } = startConversation({ model, delivery });
    const message = inbound('hi');

    say(actor, message);
    await untilIdle(actor);

    // The failed delivery may have reached LINE: the second try must carry the same retry key,
    // so LINE answers 409 instead of showing it twice (docs/line.md, "Delivery policy").
    expect(
      delivery.requests.map(({ index, attempt, replyToken }) => ({ index, attempt, replyToken })),
    ).toEqual([
      { index: 0, attempt: 1, replyToken: message.replyToken },
      { index: 0, attempt: 2, replyToken: message.replyToken },
    ]);
    expect(delivery.requests[1]?.turnStartedAt).toBe(delivery.requests[0]?.turnStartedAt);
  });

  it('goes on when a tool returns a text for the user that is no string (a JavaScript tool): the model hears of it', async () => {
    const model = new ScriptedModel([callTools(['notify', { text: 'x' }]), callReply('Done.')]);
    // Before, measuring the number as text threw inside the machine: the conversation stopped.
    const notify = echoTool('notify').implement(() =>
      Promise.resolve({ forLLM: { text: 'shown' }, forUser: 42 as never }),
    );
    const { actor, delivery } = startConversation({ model, tools: [notify] });

    await sayAndWait(actor, inbound('go'));

    expect(actor.getSnapshot().status).toBe('active');
    expect(delivery.texts).toEqual(['Done.']);
    const toolEntries = actor.getSnapshot().context.history.filter((entry) => entry.role === 'tool');
    expect(toolEntries[0]).toMatchObject({
      role: 'tool',
      results: [{ name: 'notify', response: { error: 'tool "notify" returned an invalid response' } }],
    });
  });

  it("sends no blank text of a tool's: the user sees only what has something in it", async () => {
    const model = new ScriptedModel([callTools(['notify', { text: ' \n\t' }]), callReply('Done.')]);
    const notify = echoTool('notify').implement((args) =>
      Promise.resolve({ forLLM: { text: 'shown' }, forUser: args.text }),
    );
    const { actor, delivery } = startConversation({ model, tools: [notify] });

    await sayAndWait(actor, inbound('go'));

    expect(delivery.texts).toEqual(['Done.']);
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

    say(actor, inbound('long job'));
    await untilIdle(actor);

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

      say(actor, inbound('weather?'));
      await untilIdle(actor);

      expect(delivery.requests).toHaveLength(1);
      expect(delivery.texts).toEqual(texts);
    },
  );

  it('keeps history bounded over many turns, whole exchanges only', async () => {
    const model = new ScriptedModel([callReply('ok')], { repeatLast: true });
    const { actor } = startConversation({
      model,
      settings: { maxHistoryEntries: 12, maxHistoryBytes: 64 * 1024, maxModelCallsPerMinute: 0 },
    });

    for (let turn = 0; turn < 40; turn++) {
      say(actor, inbound(`message ${turn}`));
      await untilIdle(actor);
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
      say(actor, inbound(text));
      await untilIdle(actor);
    }

    expect(model.calls).toHaveLength(2);
    expect(delivery.texts).toEqual([
      'answer',
      'answer',
      expect.stringContaining('a lot of messages') as string,
    ]);
    expect(actor.getSnapshot().context.lastTurn?.stopReason).toBe('limit-reached');
  });

  it('tells a chat of the per-minute limit once a minute: limited turns after the notice end quietly', async () => {
    // Every limited turn sent the notice: a busy group read "a lot of messages" after each of
    // its messages for as long as the flood went on.
    const minute = 60_000;
    let now = Date.parse('2026-11-28T10:00:01Z');
    const model = new ScriptedModel([callReply('answer')], { repeatLast: true });
    const { actor, delivery } = startConversation({
      model,
      now: () => now,
      settings: { maxModelCallsPerMinute: 1 },
    });
    const notice = expect.stringContaining('a lot of messages') as string;

    for (const text of ['one', 'two', 'three', 'four']) {
      actor.send({ type: 'line.messages', messages: [inbound(text)], at: now });
      await untilIdle(actor);
    }
    expect(model.calls).toHaveLength(1);
    expect(delivery.texts).toEqual(['answer', notice]);
    expect(actor.getSnapshot().context.lastTurn).toMatchObject({
      stopReason: 'limit-reached',
      deliveries: 0,
    });
    // What was said meanwhile is kept as context for the next answer.
    expect(userTexts(actor.getSnapshot().context.history)).toEqual(['one', 'two', 'three', 'four']);

    now += minute; // the limit lapsed
    actor.send({ type: 'line.messages', messages: [inbound('five')], at: now });
    await untilIdle(actor);
    expect(delivery.texts).toEqual(['answer', notice, 'answer']);
    // Reached again a minute after the notice: told again.
    actor.send({ type: 'line.messages', messages: [inbound('six')], at: now });
    await untilIdle(actor);
    expect(delivery.texts).toEqual(['answer', notice, 'answer', notice]);
  });

  it('delivers a reminder due at a limit as its own text, never quietly and never as the notice', async () => {
    // A reminder that came due while its chat was over a limit ended as the limit notice, or,
    // after one, quietly: the user was never reminded.
    const now = Date.parse('2026-11-28T10:00:01Z');
    const model = new ScriptedModel([callReply('answer')], { repeatLast: true });
    const { actor, delivery } = startConversation({
      model,
      now: () => now,
      settings: { maxModelCallsPerMinute: 1 },
    });
    for (const text of ['one', 'two']) {
      actor.send({ type: 'line.messages', messages: [inbound(text)], at: now });
      await untilIdle(actor);
    }
    const due = inbound('[reminder due] stretch', { lineEvent: 'reminder', replyToken: undefined });
    actor.send({ type: 'line.messages', messages: [due], at: now });
    await untilIdle(actor);

    expect(model.calls).toHaveLength(1);
    expect(delivery.texts).toEqual([
      'answer',
      expect.stringContaining('a lot of messages') as string,
      '⏰ stretch',
    ]);
  });

  it('tells a chat its daily token budget is spent once that day, and answers again the next', async () => {
    let now = Date.parse('2026-11-28T10:00:00Z');
    const costly = {
      ...callReply('long answer'),
      usage: { promptTokens: 900, outputTokens: 200, cachedTokens: 0 },
    };
    const model = new ScriptedModel([costly], { repeatLast: true });
    const { actor, delivery } = startConversation({
      model,
      now: () => now,
      settings: { dailyTokenBudget: 1000 },
    });

    for (const text of ['first', 'second', 'third', 'fourth']) {
      actor.send({ type: 'line.messages', messages: [inbound(text)], at: now });
      await untilIdle(actor);
      now += 3_600_000;
    }
    expect(delivery.texts).toEqual(['long answer', expect.stringContaining('a lot of messages') as string]);

    now = Date.parse('2026-11-29T00:00:01Z');
    actor.send({ type: 'line.messages', messages: [inbound('fifth')], at: now });
    await untilIdle(actor);
    expect(delivery.texts.at(-1)).toBe('long answer');
  });

  it('stops calling the model once the daily token budget is spent', async () => {
    const costly = {
      ...callReply('long answer'),
      usage: { promptTokens: 900, outputTokens: 200, cachedTokens: 0 },
    };
    const model = new ScriptedModel([costly], { repeatLast: true });
    const { actor, delivery } = startConversation({ model, settings: { dailyTokenBudget: 1000 } });

    for (const text of ['first', 'second']) {
      say(actor, inbound(text));
      await untilIdle(actor);
    }

    expect(model.calls).toHaveLength(1);
    expect(delivery.texts[1]).toContain('a lot of messages');
    const { usage } = actor.getSnapshot().context;
    expect(usage.find((bucket) => bucket.period === 'day')).toMatchObject({ modelCalls: 1, tokens: 1100 });
  });
});

/** A tool that acts outside the conversation (the default): it runs after its checkpoint. */
function sideEffectTool(name: string, runs: string[]) {
  return echoTool(name).implement((args) => {
    runs.push(name);
    return Promise.resolve({ forLLM: { text: `${name}:${args.text}` } });
  });
}

/** A conversation whose checkpoints the test answers itself, as a host would. */
function hostedConversation(options: Parameters<typeof conversationMachineFor>[0]) {
  const actor = createActor(conversationMachineFor(options), {
    systemId: CONVERSATION_SYSTEM_ID,
    input: { source: userSource, ...(options.settings && { settings: options.settings }) },
  });
  const emitted: string[] = [];
  actor.on('*', (event) => {
    emitted.push(
      event.type === 'turn.ended'
        ? `${event.type}:${event.outcome}`
        : event.type === 'checkpoint.needed'
          ? `${event.type}:${event.reason}`
          : event.type,
    );
  });
  actor.start();
  return { actor, emitted };
}

describe('the conversation and its host', () => {
  it('announces the start and the end of every turn, with the outcome', async () => {
    const { actor } = startConversation({
      model: new ScriptedModel([callTools(['skip', { reason: 'not for me' }])]),
    });
    const events: unknown[] = [];
    actor.on('turn.started', (event) => events.push(event));
    actor.on('turn.ended', (event) => events.push(event));
    const message = inbound('talking to Ken');

    await sayAndWait(actor, message);
    await sayAndWait(actor, inbound('note', { quiet: true }));

    expect(events).toEqual([
      { type: 'turn.started', turnId: message.eventId },
      { type: 'turn.ended', turnId: message.eventId, outcome: 'final-tool' },
      { type: 'turn.started', turnId: expect.any(String) as unknown },
      { type: 'turn.ended', turnId: expect.any(String) as unknown, outcome: 'quiet' },
    ]);
  });

  it('waits for a checkpoint before delivering, and not before a pure tool', async () => {
    const delivery = new RecordingDelivery();
    const { actor, emitted } = hostedConversation({
      model: new ScriptedModel([callReply('Hello')]),
      delivery,
    });

    say(actor, inbound('hi'));
    const waiting = await waitFor(actor, (snapshot) => snapshot.hasTag(AWAITING_CHECKPOINT_TAG));

    expect(waiting.value).toEqual({ toolCall: { delivering: 'securing' } });
    expect(delivery.requests).toEqual([]);
    actor.send({ type: 'checkpoint.done', resumed: false });
    await untilIdle(actor);
    expect(delivery.requests).toEqual([expect.objectContaining({ texts: ['Hello'], resumed: false })]);
    expect(emitted).toEqual(['turn.started', 'checkpoint.needed:delivery', 'turn.ended:final-tool']);
  });

  it('runs a tool with side effects only after its checkpoint', async () => {
    const runs: string[] = [];
    const { actor, emitted } = hostedConversation({
      model: new ScriptedModel([
        callTools(['book', { text: 'table' }]),
        callTools(['skip', { reason: 'ok' }]),
      ]),
      delivery: new RecordingDelivery(),
      tools: [sideEffectTool('book', runs)],
    });

    say(actor, inbound('book a table'));
    await waitFor(actor, (snapshot) => snapshot.hasTag(AWAITING_CHECKPOINT_TAG));
    expect(runs).toEqual([]);
    actor.send({ type: 'checkpoint.done', resumed: false });
    await untilIdle(actor);

    expect(runs).toEqual(['book']);
    expect(emitted).toEqual(['turn.started', 'checkpoint.needed:tool', 'turn.ended:final-tool']);
  });

  it('tells a delivery restored from its intent that it was resumed', async () => {
    const { actor } = hostedConversation({
      model: new ScriptedModel([callReply('Hello')]),
      delivery: new RecordingDelivery(),
    });
    say(actor, inbound('hi'));
    await waitFor(actor, (snapshot) => snapshot.hasTag(AWAITING_CHECKPOINT_TAG));
    const intent = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop(); // the process dies after the intent was written

    const delivery = new RecordingDelivery();
    const restored = restoreConversation(
      conversationMachineFor({ model: new ScriptedModel([]), delivery }),
      intent,
    );
    await untilIdle(restored);

    expect(delivery.requests).toEqual([expect.objectContaining({ texts: ['Hello'], resumed: true })]);
  });

  it('keeps the deadline a turn started with when it is restored later', async () => {
    let now = Date.UTC(2026, 0, 1, 9, 0);
    const started = now;
    const model = new ScriptedModel([callTools(['book', { text: 'table' }])]);
    const { actor } = hostedConversation({
      model,
      delivery: new RecordingDelivery(),
      tools: [sideEffectTool('book', [])],
      settings: { turnDeadlineMs: 30_000 },
      now: () => now,
    });
    actor.send({ type: 'line.messages', messages: [inbound('book a table')], at: started });
    await waitFor(actor, (snapshot) => snapshot.hasTag(AWAITING_CHECKPOINT_TAG));
    const intent = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();

    now += 10_000; // a new process takes over ten seconds later
    const resumedModel = new ScriptedModel([callReply('booked')]);
    const restored = restoreConversation(
      conversationMachineFor({
        model: resumedModel,
        delivery: new RecordingDelivery(),
        tools: [sideEffectTool('book', [])],
        settings: { turnDeadlineMs: 30_000 },
        now: () => now,
      }),
      intent,
    );
    await untilIdle(restored);

    expect(model.calls[0]?.deadline).toBe(started + 30_000);
    expect(resumedModel.calls[0]?.deadline).toBe(started + 30_000);
  });

  it('numbers history entries in order and says which ones an unsend removed', async () => {
    const { actor } = startConversation({
      model: new ScriptedModel([callReply('ok')], { repeatLast: true }),
    });
    const removed: (readonly number[])[] = [];
    actor.on('history.removed', (event) => removed.push(event.seqs));

    await sayAndWait(actor, inbound('one', { messageId: 'm-1' }));
    await sayAndWait(actor, inbound('two', { messageId: 'm-2' }));
    actor.send({ type: 'line.unsend', messageId: 'm-1' });
    actor.send({ type: 'line.unsend', messageId: 'unknown' });

    const { history, lastSeq } = actor.getSnapshot().context;
    expect(history.map((entry) => [entry.seq, entry.role])).toEqual([
      [2, 'model'],
      [3, 'tool'],
      [4, 'user'],
      [5, 'model'],
      [6, 'tool'],
    ]);
    expect(lastSeq).toBe(6);
    expect(removed).toEqual([[1], []]);
  });

  it('keeps usage in at most three buckets over 2,000 turns, and the per-minute limit still holds', async () => {
    let now = Date.UTC(2026, 0, 1, 9, 0, 30);
    const model = new ScriptedModel([callReply('ok')], { repeatLast: true });
    const { actor, delivery } = startConversation({
      model,
      settings: { maxModelCallsPerMinute: 40, maxHistoryEntries: 6 },
      now: () => now,
    });
    let mostBuckets = 0;
    for (let turn = 0; turn < 2000; turn++) {
      now += 2_000; // 30 a minute: under the limit
      actor.send({ type: 'line.messages', messages: [inbound(`m${turn}`)], at: now });
      const snapshot = await untilIdle(actor);
      mostBuckets = Math.max(mostBuckets, snapshot.context.usage.length);
    }
    expect(model.calls).toHaveLength(2000);
    expect(mostBuckets).toBeLessThanOrEqual(3);

    const before = model.calls.length;
    const deliveredBefore = delivery.texts.length;
    for (let turn = 0; turn < 60; turn++) {
      now += 100; // a burst of 60 in six seconds
      actor.send({ type: 'line.messages', messages: [inbound(`burst ${turn}`)], at: now });
      await untilIdle(actor);
    }
    const answered = model.calls.length - before;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(40);
    // Told once: the burst lasted six seconds, within the notice's minute.
    const notices = delivery.texts
      .slice(deliveredBefore)
      .filter((text) => text.includes('a lot of messages'));
    expect(notices).toHaveLength(1);
    expect(actor.getSnapshot().context.usage.length).toBeLessThanOrEqual(3);
  });
});

describe('conversation snapshots', () => {
  it('round-trips through JSON at idle', async () => {
    const { actor } = startConversation({ model: new ScriptedModel([callReply('hi')]) });
    say(actor, inbound('hello'));
    await untilIdle(actor);

    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    const delivery = new RecordingDelivery();
    const machine = conversationMachineFor({ model: new ScriptedModel([callReply('again')]), delivery });
    const restored = restoreConversation(machine, json);
    const snapshot = await sayAndWait(restored, inbound('second'));

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
    say(actor, message);
    await waitFor(actor, (snapshot) => snapshot.matches('generate'));

    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop(); // the process "crashes"
    const delivery = new RecordingDelivery();
    const model = new ScriptedModel([callReply('yes, back again')]);
    const restored = restoreConversation(conversationMachineFor({ model, delivery }), json);
    const snapshot = await untilIdle(restored);

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
    say(actor, inbound('do both'));
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
    const snapshot = await untilIdle(restored);

    expect(log.sort()).toEqual(['end fast', 'start fast', 'start stuck']);
    expect(rerunLog).toEqual(['start stuck', 'end stuck']);
    expect(snapshot.context.history.find((entry) => entry.role === 'tool')).toMatchObject({
      results: [{ response: { text: 'fast:x' } }, { response: { text: 'stuck:y' } }],
    });
  });

  it.each([
    ['a tool', { tools: true }],
    ['its apology', { tools: false }],
  ])(
    'set aside while %s waits for its checkpoint: nothing is sent, the turn ends as abandoned',
    async (_name, { tools }) => {
      // The host sets a resumed or unstorable turn aside in whichever state its head holds it.
      const delivery = new RecordingDelivery();
      const model = tools
        ? new ScriptedModel([callTools(['act', { text: 'x' }])])
        : new ScriptedModel([() => Promise.reject(new Error('model down'))]);
      const act = echoTool('act').implement(() => Promise.resolve({ forLLM: { text: 'done' } }));
      const actor = createActor(conversationMachineFor({ model, tools: [act], delivery }), {
        systemId: CONVERSATION_SYSTEM_ID,
        input: { source: userSource },
      }).start();
      say(actor, inbound('hi'));
      await waitFor(actor, (snapshot) => snapshot.hasTag(AWAITING_CHECKPOINT_TAG));

      actor.send({ type: 'turn.abandon' });
      const snapshot = await untilIdle(actor);

      expect(snapshot.context.lastTurn?.stopReason).toBe('abandoned');
      expect(delivery.texts).toEqual([]);
    },
  );

  it('is plain JSON: the persisted snapshot survives stringify unchanged', async () => {
    const { actor } = startConversation({ model: new ScriptedModel([callReply('hi')]) });
    say(actor, inbound('hello'));
    await untilIdle(actor);
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
    answerCheckpointsAtOnce(actor).start();
    say(actor, inbound('hi'));
    // The model call fails: the machine apologises, which fails too.
    const snapshot = await untilIdle(actor);

    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(errors).toEqual([]);
  });
});
