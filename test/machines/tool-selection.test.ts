import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createLogger, type Logger } from '../../src/logging/index.js';
import {
  answerCheckpointsAtOnce,
  CONVERSATION_SYSTEM_ID,
  provideConversationServices,
} from '../../src/machines/index.js';
import {
  OfflineModel,
  ScriptedModel,
  callReply,
  callTools,
  type ModelPort,
  type ModelResponse,
} from '../../src/model/index.js';
import { StepPrompt } from '../../src/prompt/step-prompt.js';
import { createWeatherTool, type Tool } from '../../src/tools/index.js';
import {
  RecordingDelivery,
  inbound,
  restoreConversation,
  say,
  untilIdle,
  userSource,
} from '../support/conversation-harness.js';
import { startFakeWeatherServer } from '../support/fake-weather-server.js';
import { recordingLogger } from '../support/recording-logger.js';
import { builtInRegistry } from '../tools/selection/selection-fixtures.js';

/** The conversation machine with per-step selection over the built-in tools and the tool finder. */
function selectingMachine(model: ModelPort, options: { logger?: Logger; tools?: Tool[] } = {}) {
  const registry = builtInRegistry(options.tools ?? []);
  const delivery = new RecordingDelivery();
  const machine = provideConversationServices({
    model,
    tools: registry,
    delivery,
    systemInstruction: () => 'unused when a step prompt is given',
    stepPrompt: new StepPrompt(registry, 'You are a test bot.'),
    clock: { now: () => 0 },
    logger: options.logger ?? createLogger({ level: 'silent' }),
  });
  return { machine, delivery };
}

function start(machine: ReturnType<typeof selectingMachine>['machine']) {
  const actor = createActor(machine, { systemId: CONVERSATION_SYSTEM_ID, input: { source: userSource } });
  answerCheckpointsAtOnce(actor).start();
  return actor;
}

// No keyword of set_reminder in it: selection leaves the tool out.
const UNHINTED = 'can you nudge me later to stretch?';
const askForReminder = callTools(['find_tools', { name: 'set_reminder' }]);
const setReminder = callTools(['set_reminder', { text: 'stretch', delay_minutes: 5 }]);

describe('per-step tool selection in the conversation machine', () => {
  it('reaches a withheld tool through the tool finder: asked for, offered at the next step, called', async () => {
    const model = new ScriptedModel([askForReminder, setReminder, callReply('I will remind you.')]);
    const { machine, delivery } = selectingMachine(model);
    const actor = start(machine);

    say(actor, inbound(UNHINTED));
    const snapshot = await untilIdle(actor);

    const [first, second, third] = model.calls;
    expect(first?.toolNames).toEqual(['find_tools', 'reply', 'skip']);
    expect(second?.toolNames).toEqual(['find_tools', 'reply', 'set_reminder', 'skip']);
    expect(second?.stepGuidance).toContain('### set_reminder');
    expect(third?.toolNames).toContain('set_reminder'); // used this turn: still offered
    const results = snapshot.context.history.flatMap((entry) => (entry.role === 'tool' ? entry.results : []));
    expect(results.map((result) => [result.name, result.response.error])).toEqual([
      ['find_tools', undefined],
      ['set_reminder', undefined],
      ['reply', undefined],
    ]);
    expect(delivery.texts).toEqual(['I will remind you.']);
  });

  it('logs the offered set and the reasons of every model call, without the message text', async () => {
    const { logger, lines } = recordingLogger();
    const model = new ScriptedModel([askForReminder, setReminder, callReply('ok')]);
    const actor = start(selectingMachine(model, { logger }).machine);

    say(actor, inbound(UNHINTED));
    await untilIdle(actor);

    const offered = lines.filter((line) => line.message === 'tools offered');
    expect(offered.map(({ modelCall, offered: names, reasons }) => ({ modelCall, names, reasons }))).toEqual([
      { modelCall: 1, names: ['find_tools', 'reply', 'skip'], reasons: {} },
      {
        modelCall: 2,
        names: ['find_tools', 'reply', 'set_reminder', 'skip'],
        reasons: { set_reminder: ['requested through the tool finder'] },
      },
      {
        modelCall: 3,
        names: ['find_tools', 'reply', 'set_reminder', 'skip'],
        reasons: { set_reminder: ['requested through the tool finder', 'used in this turn'] },
      },
    ]);
    expect(offered[0]).toMatchObject({
      level: 'info',
      sourceId: userSource.id,
      withheld: expect.any(Array) as unknown,
    });
    expect(JSON.stringify(offered)).not.toContain('nudge');
  });

  it('still offers the requested tool when the turn is restored mid-step', async () => {
    let reachedSecondStep: () => void = () => undefined;
    const secondStep = new Promise<void>((resolve) => (reachedSecondStep = resolve));
    const firstModel = new ScriptedModel([
      askForReminder,
      () => {
        reachedSecondStep();
        return new Promise<ModelResponse>(() => undefined); // in flight when the process dies
      },
    ]);
    const actor = start(selectingMachine(firstModel).machine);
    say(actor, inbound(UNHINTED));
    await secondStep;
    const persisted = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();

    const restoredModel = new ScriptedModel([setReminder, callReply('done')]);
    const { machine, delivery } = selectingMachine(restoredModel);
    const restored = restoreConversation(machine, persisted);
    await untilIdle(restored);

    expect(restoredModel.calls[0]?.toolNames).toContain('set_reminder');
    expect(delivery.texts).toEqual(['done']);
  });
});

describe('the offline model with per-step selection', () => {
  let weather: Awaited<ReturnType<typeof startFakeWeatherServer>>;
  beforeAll(async () => {
    weather = await startFakeWeatherServer();
  });
  afterAll(() => weather.close());

  it.each<[string, (tool: Tool) => Tool, string[]]>([
    ['offered by its keywords', (tool) => tool, ['get_weather', 'reply']],
    [
      'withheld (no keywords): found through the tool finder',
      (tool) => ({ ...tool, keywords: [] }),
      ['find_tools', 'get_weather', 'reply'],
    ],
  ])('finds get_weather when %s', async (_case, adapt, expectedCalls) => {
    const model = new OfflineModel();
    const { machine, delivery } = selectingMachine(model, {
      tools: [adapt(createWeatherTool({ baseUrl: weather.baseUrl }))],
    });
    // The built-in weather tool is replaced by the adapted one.
    const actor = start(machine);

    say(actor, inbound("What's the weather in Tokyo?"));
    const snapshot = await untilIdle(actor);

    const calls = snapshot.context.history.flatMap((entry) => (entry.role === 'model' ? entry.calls : []));
    expect(calls.map((call) => call.name)).toEqual(expectedCalls);
    expect(delivery.texts[0]).toContain('Weather for Tokyo');
  });
});
