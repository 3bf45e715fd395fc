import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import {
  GeminiModel,
  ModelUnavailableError,
  type GeminiModelOptions,
  type GeminiRetryOptions,
  type ModelRequest,
} from '../../src/model/index.js';
import { resolveRetryOptions } from '../../src/model/gemini/gemini-options.js';
import { callWithRetry } from '../../src/model/gemini/gemini-retry.js';
import { inbound, say, startConversation, untilIdle } from '../support/conversation-harness.js';
import { apiError, FakeGeminiServer, rateLimited, textAnswer } from '../support/fake-gemini-server.js';

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

/** A clock that only moves when the adapter sleeps; the sleeps are recorded, not waited. */
function fakeTime() {
  let now = Date.UTC(2026, 10, 22, 10, 0);
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleeps,
    sleep: (ms: number) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const retry: GeminiRetryOptions = { maxAttempts: 4, initialDelayMs: 500, maxDelayMs: 8_000 };

function setUp(options: Partial<GeminiModelOptions> = {}) {
  const time = fakeTime();
  const model = new GeminiModel({
    apiKey: 'test-key',
    baseUrl: server.baseUrl,
    cache: false,
    clock: time.clock,
    sleep: time.sleep,
    random: () => 0,
    retry,
    ...options,
  });
  return { model, time };
}

const history: HistoryEntry[] = [{ role: 'user', eventId: 'e1', text: 'hello', timestamp: 0 }];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    systemInstruction: 'You are a test bot.',
    history,
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<ModelUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(ModelUnavailableError);
  return error as ModelUnavailableError;
}

describe('GeminiModel failure handling', () => {
  it('honours the RetryInfo delay of a 429', async () => {
    server.enqueue(rateLimited('17s'), textAnswer('ok'));
    const { model, time } = setUp();

    const response = await model.generate(request());

    expect(response.text).toBe('ok');
    expect(time.sleeps).toEqual([17_000]);
  });

  it('honours Retry-After when there is no RetryInfo', async () => {
    server.enqueue(
      apiError(503, 'UNAVAILABLE', 'The model is overloaded.', { headers: { 'retry-after': '3' } }),
      textAnswer('ok'),
    );
    const { model, time } = setUp();

    await model.generate(request());

    expect(time.sleeps).toEqual([3_000]);
  });

  it('backs off exponentially with jitter on 500s, then succeeds', async () => {
    server.enqueue(
      apiError(500, 'INTERNAL', 'An internal error has occurred.'),
      apiError(500, 'INTERNAL', 'An internal error has occurred.'),
      apiError(502, 'UNAVAILABLE', 'Bad gateway'),
      textAnswer('ok'),
    );
    const { model, time } = setUp({ random: () => 1 });

    const response = await model.generate(request());

    expect(response.text).toBe('ok');
    // Equal jitter: half of 500·2^n fixed, half random (here the top of the range).
    expect(time.sleeps).toEqual([500, 1_000, 2_000]);
    expect(server.generateBodies).toHaveLength(4);
  });

  it.each([
    ['a malformed JSON body', { raw: '{"candidates": [{"content": ' }],
    [
      'an HTML 502 from a proxy',
      { raw: '<html>502 Bad Gateway</html>', status: 502, contentType: 'text/html' },
    ],
    ['a connection reset', { reset: true as const }],
  ])('retries %s', async (_, answer) => {
    server.enqueue(answer, textAnswer('ok'));
    const { model, time } = setUp();

    const response = await model.generate(request());

    expect(response.text).toBe('ok');
    expect(time.sleeps).toEqual([250]);
  });

  it('does not retry a 400', async () => {
    server.enqueue(
      apiError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'),
      textAnswer('never'),
    );
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request()));

    expect(error).toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(time.sleeps).toEqual([]);
    expect(server.generateBodies).toHaveLength(1);
  });

  it('gives up after the last attempt with the last status', async () => {
    server.enqueue(
      ...Array.from({ length: 4 }, () => apiError(503, 'UNAVAILABLE', 'The model is overloaded.')),
    );
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request()));

    expect(error).toMatchObject({ name: 'ModelUnavailableError', kind: 'http', status: 503, attempts: 4 });
    expect(time.sleeps).toHaveLength(3);
  });

  it('gives up at once when the server asks for a wait beyond the limit (a spent daily quota)', async () => {
    server.enqueue(rateLimited('3600s'));
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request()));

    expect(error).toMatchObject({ status: 429, attempts: 1 });
    expect(time.sleeps).toEqual([]);
  });

  it('does not wait past the turn’s deadline', async () => {
    server.enqueue(rateLimited('30s'));
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request({ deadline: time.clock.now() + 10_000 })));

    expect(error).toMatchObject({ kind: 'deadline', status: 429, attempts: 1 });
    expect(time.sleeps).toEqual([]);
  });

  it('aborts a slow answer when the caller’s signal aborts, without retrying', async () => {
    const controller = new AbortController();
    server.enqueue(() => {
      controller.abort(new Error('the actor stopped'));
      return { hang: true };
    });
    const { model, time } = setUp();

    await expect(model.generate(request({ signal: controller.signal }))).rejects.toThrow('the actor stopped');
    expect(time.sleeps).toEqual([]);
    expect(server.generateBodies).toHaveLength(1);
  });

  it('cuts a slow answer at the deadline', async () => {
    server.enqueue({ hang: true });
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request({ deadline: time.clock.now() + 50 })));

    expect(error).toMatchObject({ kind: 'deadline', attempts: 1 });
    expect(server.generateBodies).toHaveLength(1);
  });

  it('retries an attempt that timed out before the deadline', async () => {
    server.enqueue({ hang: true }, textAnswer('ok'));
    const { model, time } = setUp({ retry: { ...retry, attemptTimeoutMs: 50 } });

    const response = await model.generate(request({ deadline: time.clock.now() + 60_000 }));

    expect(response.text).toBe('ok');
    expect(time.sleeps).toEqual([250]);
  });

  it('fails with the deadline when it has already passed', async () => {
    const { model, time } = setUp();

    const error = await failureOf(model.generate(request({ deadline: time.clock.now() - 1 })));

    expect(error).toMatchObject({ kind: 'deadline', attempts: 0 });
    expect(server.generateBodies).toEqual([]);
  });

  it('apologises to the user through the conversation machine when the model fails for good', async () => {
    server.enqueue(apiError(503, 'UNAVAILABLE', 'overloaded'), apiError(503, 'UNAVAILABLE', 'overloaded'));
    const { model } = setUp({ retry: { ...retry, maxAttempts: 2 } });
    const { actor, delivery } = startConversation({ model });

    say(actor, inbound('hello?'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toHaveLength(1);
    expect(delivery.texts[0]).toContain('Sorry');
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(server.generateBodies).toHaveLength(2);
  });
});

describe('callWithRetry', () => {
  it('ends an attempt at its timeout even when the call ignores its signal, and retries', async () => {
    const calls: number[] = [];
    const context = {
      policy: resolveRetryOptions({ attemptTimeoutMs: 20 }),
      clock: { now: () => Date.now() },
      sleep: () => Promise.resolve(),
      random: () => 0,
      signal: new AbortController().signal,
    };

    const value = await callWithRetry(({ number }) => {
      calls.push(number);
      // The first attempt hangs whatever its signal says, like a stream stuck in a body read.
      return number === 1 ? new Promise<string>(() => {}) : Promise.resolve('ok');
    }, context);

    expect(value).toBe('ok');
    expect(calls).toEqual([1, 2]);
  }, 2_000);
});
