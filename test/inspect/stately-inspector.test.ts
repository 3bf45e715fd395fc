import type { InspectionEvent } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { connectStatelyInspector, createInspection, createRedactor } from '../../src/inspect/index.js';
import { callReply } from '../../src/model/index.js';
import type { KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { createTestHost, messageFor, userSourceNumber } from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';
import { gatedModel } from './inspect-harness.js';

/** Stands in for `@statelyai/inspect`: records what would go to Stately. */
function fakeStatelyModule() {
  const sent: InspectionEvent[] = [];
  return {
    sent,
    module: {
      createSkyInspector: () => ({ inspect: { next: (event: InspectionEvent) => sent.push(event) } }),
    },
  };
}

describe('KAIWA_STATELY_INSPECT (opt-in link to Stately’s hosted inspector)', () => {
  let runtime: KaiwaRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  it('without @statelyai/inspect loadable, warns how to install it and connects nothing', async () => {
    const { logger, lines } = recordingLogger();
    const hook = await connectStatelyInspector({
      logger,
      redact: createRedactor(),
      importModule: (name) => Promise.reject(new Error(`Cannot find package '${name}'`)),
    });
    expect(hook).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('warn');
    expect(lines[0]?.message).toContain('npm install');
  });

  it('the real package is a dependency and offers the hosted inspector the flag connects (not called: no network here)', async () => {
    const module = (await import('@statelyai/inspect')) as { createSkyInspector?: unknown };
    expect(typeof module.createSkyInspector).toBe('function');
  });

  it('with the package, forwards every inspection event, payloads redacted', async () => {
    const { logger } = recordingLogger();
    const stately = fakeStatelyModule();
    const inspection = await createInspection({
      config: loadConfig({ PORT: '0', STORE: 'memory', KAIWA_STATELY_INSPECT: 'true' }),
      clock: { now: () => Date.now() },
      logger,
      importModule: () => Promise.resolve(stately.module),
    });
    const gated = gatedModel(() => callReply('ok'));
    gated.release();
    const { host } = createTestHost({ model: gated.model, host: { inspect: inspection.inspect } });
    const message = { ...messageFor(userSourceNumber(7), 'hi'), replyToken: 'reply-token-must-not-leave' };

    await host.accept([message]);
    await host.whenSettled();
    await host.shutdown();

    const types = new Set(stately.sent.map((event) => event.type));
    expect(types).toEqual(
      new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot', '@xstate.microstep', '@xstate.action']),
    );
    const payloads: unknown[] = [
      ...stately.sent.map((event) => ('event' in event ? event.event : undefined)),
      ...stately.sent.map((event) =>
        'snapshot' in event ? (event.snapshot as { context?: unknown }).context : undefined,
      ),
    ];
    const text = JSON.stringify(payloads);
    expect(text).toContain('line.message');
    expect(text).not.toContain('reply-token-must-not-leave');
    // The local journal is fed as well.
    expect((await inspection.journal.entries(message.source.id)).length).toBeGreaterThan(3);
  });
});
