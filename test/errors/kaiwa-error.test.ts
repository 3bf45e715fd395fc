import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { SecretNotFoundError } from '../../src/aws/index.js';
import { ConfigError } from '../../src/config/index.js';
import { KaiwaError } from '../../src/errors/index.js';
import { LimitReachedError } from '../../src/machines/index.js';
import { GeminiConfigError, ModelUnavailableError } from '../../src/model/gemini/index.js';
import { ItemTooLargeError, VersionConflictError } from '../../src/persistence/index.js';
import { ResponseTooLargeError } from '../../src/tools/builtin/response-too-large-error.js';
import { UnexpectedForecastError } from '../../src/tools/builtin/unexpected-forecast-error.js';
import { ToolDefinitionError } from '../../src/tools/index.js';
import { DeadlineExceededError } from '../../src/timing/index.js';
import { ModelNoAnswerError } from '../../src/model/gemini/model-no-answer-error.js';
import { LineRequestError } from '../../src/line/line-request-error.js';
import { ProcessLockBusyError } from '../../src/persistence/sqlite-process-lock.js';
import { MessageTakenBackError, OwnershipLostError, StoreInUseError } from '../../src/persistence/index.js';

// The symbols any copy of kaiwa registers: `Symbol.for` returns the same one to every caller.
const kaiwaMarker = Symbol.for('kaiwa.error');
const configMarker = Symbol.for('kaiwa.error.ConfigError');

interface ErrorClass {
  readonly name: string;
  isInstance(value: unknown): boolean;
}

// Every error kaiwa throws, with the fields it carries.
const errors: [ErrorClass, KaiwaError, Record<string, unknown>][] = [
  [
    ConfigError,
    new ConfigError('PORT', 'must be a number'),
    { variable: 'PORT', reason: 'must be a number' },
  ],
  [GeminiConfigError, new GeminiConfigError('GEMINI_MODEL', 'is empty'), { variable: 'GEMINI_MODEL' }],
  [
    ModelUnavailableError,
    new ModelUnavailableError('http', 3, 503),
    { kind: 'http', attempts: 3, status: 503 },
  ],
  [SecretNotFoundError, new SecretNotFoundError(['/kaiwa/prod/x']), { parameterNames: ['/kaiwa/prod/x'] }],
  [
    ItemTooLargeError,
    new ItemTooLargeError('U1', 500_000, 350_000),
    { sizeBytes: 500_000, limitBytes: 350_000 },
  ],
  [VersionConflictError, new VersionConflictError('U1', 3, 4), { expectedVersion: 3, actualVersion: 4 }],
  [
    LimitReachedError,
    new LimitReachedError('daily-token-budget', 'U1', { limit: 'daily-token-budget', at: 1, until: 2 }),
    { limit: 'daily-token-budget' },
  ],
  [DeadlineExceededError, new DeadlineExceededError(3000), { deadline: 3000 }],
  [
    ModelNoAnswerError,
    new ModelNoAnswerError('refused', 'SAFETY'),
    { reason: 'refused', finishReason: 'SAFETY' },
  ],
  [LineRequestError, new LineRequestError('POST /v2/bot/message/push', 'timeout'), { reason: 'timeout' }],
  [ProcessLockBusyError, new ProcessLockBusyError('/tmp/k.db.lock'), { lockFile: '/tmp/k.db.lock' }],
  [OwnershipLostError, new OwnershipLostError('U1', 2, 3, 'other'), { fence: 2, currentFence: 3 }],
  [MessageTakenBackError, new MessageTakenBackError('U1', ['7']), { sourceId: 'U1', keys: ['7'] }],
  [StoreInUseError, new StoreInUseError('/tmp/k.db', undefined), { file: '/tmp/k.db' }],
  [ResponseTooLargeError, new ResponseTooLargeError(1024), { maxBytes: 1024 }],
  [UnexpectedForecastError, new UnexpectedForecastError('hourly'), { field: 'hourly' }],
  [ToolDefinitionError, new ToolDefinitionError('echo', 'a keyword is empty'), { toolName: 'echo' }],
];

describe('KaiwaError', () => {
  it.each(errors.map((entry) => [entry[0].name, ...entry] as const))(
    '%s is a KaiwaError with a stable name and its fields',
    (_name, errorClass, error, fields) => {
      expect(error).toBeInstanceOf(Error);
      expect(KaiwaError.isInstance(error)).toBe(true);
      expect(errorClass.isInstance(error)).toBe(true);
      // The name is a literal of the class, not read from the constructor, so bundling keeps it.
      expect(error.name).toBe(errorClass.name);
      expect(String(error)).toBe(`${errorClass.name}: ${error.message}`);
      expect(error).toMatchObject(fields);
    },
  );

  it('tells the kinds apart: no class claims another class’s error', () => {
    for (const [errorClass] of errors) {
      const claimed = errors.filter(([, error]) => errorClass.isInstance(error)).map(([other]) => other.name);
      expect(claimed).toEqual([errorClass.name]);
    }
  });

  it.each<[string, unknown]>([
    ['a plain Error', new Error('x')],
    ['a TypeError', new TypeError('x')],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'ConfigError'],
    ['an object named like one', { name: 'ConfigError', message: 'x' }],
    ['a marker that is not true', { [Symbol.for('kaiwa.error')]: 'yes' }],
  ])('is not fooled by %s', (_case, value) => {
    expect(KaiwaError.isInstance(value)).toBe(false);
    expect(ConfigError.isInstance(value)).toBe(false);
  });

  it('recognises an error made by another copy of kaiwa, where instanceof does not', async () => {
    // Another copy of the module (a second bundle, another version in node_modules): a class of
    // its own, with the same registered symbols.
    vi.resetModules();
    const copy = await import('../../src/config/config-error.js');
    const fromCopy = new copy.ConfigError('PORT', 'must be a number');

    expect(copy.ConfigError).not.toBe(ConfigError);
    expect(fromCopy instanceof ConfigError).toBe(false);
    expect(ConfigError.isInstance(fromCopy)).toBe(true);
    expect(KaiwaError.isInstance(fromCopy)).toBe(true);
    expect(VersionConflictError.isInstance(fromCopy)).toBe(false);
  });

  it('recognises one written by hand with the same markers, as any copy would be', () => {
    class ConfigErrorOfAnotherCopy extends Error {
      readonly [kaiwaMarker] = true;
      readonly [configMarker] = true;
      override readonly name = 'ConfigError';
    }
    const error: unknown = new ConfigErrorOfAnotherCopy('invalid configuration');

    expect(KaiwaError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(ItemTooLargeError.isInstance(error)).toBe(false);
    if (ConfigError.isInstance(error)) expectTypeOf(error).toEqualTypeOf<ConfigError>();
  });

  it('keeps the cause it was given, and has none otherwise', () => {
    const cause = new TypeError('fetch failed');

    const withCause = new ModelUnavailableError('network', 3, undefined, { cause });
    const withoutCause = new ModelUnavailableError('network', 3);

    expect(withCause.cause).toBe(cause);
    expect(Object.hasOwn(withoutCause, 'cause')).toBe(false);
  });

  it('has readonly fields', () => {
    const error = new VersionConflictError('U1', 3, 4);
    // @ts-expect-error -- the expected version is what the writer held; nobody may change it
    error.expectedVersion = 4;
    // @ts-expect-error -- nor the name
    error.name = 'SomethingElse';
    expectTypeOf(error.name).toEqualTypeOf<'VersionConflictError'>();
  });

  it('is the base of every error class in src/', async () => {
    const files = (await readdir('src', { recursive: true })).filter((file) => file.endsWith('.ts'));
    const offenders: string[] = [];
    const found: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join('src', file), 'utf8');
      for (const match of text.matchAll(/class (\w+) extends (\w*Error)\b/g)) {
        // LINE's SDK recognises its own HTTPFetchError: kaiwa's answer-with-a-status error stays one.
        if (match[1] === 'LineApiError' && match[2] === 'HTTPFetchError') continue;
        if (match[1] !== 'KaiwaError') found.push(match[1]!);
        if (match[2] !== 'KaiwaError' && match[1] !== 'KaiwaError') offenders.push(`${file}: ${match[0]}`);
      }
    }
    expect(offenders).toEqual([]);
    // Every error class of src/ is in the table above, so each one's brand is tested.
    expect([...new Set(found)].sort()).toEqual(errors.map(([errorClass]) => errorClass.name).sort());
  });
});
