import { updatePerformanceSection } from './performance-doc.js';
import { pathToFileURL } from 'node:url';
import { createActor, waitFor } from 'xstate';
import type { JsonObject, Source } from '../src/domain/index.js';
import { silentLogger } from '../src/logging/index.js';
import {
  answerCheckpointsAtOnce,
  CONVERSATION_SYSTEM_ID,
  provideConversationServices,
} from '../src/machines/index.js';
import { GeminiModel } from '../src/model/index.js';
import { DEFAULT_PERSONA } from '../src/prompt/persona.js';
import { StepPrompt } from '../src/prompt/step-prompt.js';
import { SystemPrompt } from '../src/prompt/system-prompt.js';
import { ToolRegistry } from '../src/tools/index.js';
import { createToolFinderTool, TOOL_FINDER_NAME } from '../src/tools/selection/index.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  type FakeAnswer,
  type GenerateContentBody,
} from '../test/support/fake-gemini-server.js';
import { TOOL_SELECTION_SCRIPT, type ScriptedTurn } from './tool-selection-script.js';
import { benchTools } from './tool-selection-tools.js';

// `npm run bench` (or `tsx bench/tool-selection.ts` alone): prompt tokens per model call on a
// scripted 20-turn conversation, every tool offered at every step versus per-step selection.
// The conversation machine and the real Gemini adapter build the requests; the local fake
// Gemini server receives them, and the figures are read from the bodies it got.

/** What one contender cost over the whole script. */
export interface ContenderFigures {
  readonly contender: 'all tools' | 'selection';
  readonly modelCalls: number;
  readonly declarationsPerCall: number;
  /** Characters / 4 of each request's system instruction, declarations and contents. */
  readonly promptTokens: {
    readonly instruction: number;
    readonly declarations: number;
    readonly contents: number;
  };
  readonly totalPromptTokens: number;
  readonly neededCalls: number;
  readonly reachedCalls: number;
  readonly toolFinderCalls: number;
}

export interface ToolSelectionFigures {
  readonly turns: number;
  readonly optionalTools: number;
  readonly all: ContenderFigures;
  readonly selection: ContenderFigures;
}

const source: Source = { kind: 'user', id: 'Ubench0000000000000000000000000000' };

/** Runs the script once per contender and measures both. */
export async function measureToolSelection(): Promise<ToolSelectionFigures> {
  const all = await runContender('all tools');
  const selection = await runContender('selection');
  return {
    turns: TOOL_SELECTION_SCRIPT.length,
    optionalTools: benchTools().filter((tool) => tool.optional).length,
    all,
    selection,
  };
}

async function runContender(contender: ContenderFigures['contender']): Promise<ContenderFigures> {
  const fake = await FakeGeminiServer.start();
  try {
    const registry = new ToolRegistry({ logger: silentLogger });
    for (const tool of benchTools()) registry.register(tool);
    if (contender === 'selection') registry.register(createToolFinderTool({ registry }));
    const systemPrompt = new SystemPrompt(registry, DEFAULT_PERSONA);
    const brain = new ScriptedBrain();
    fake.enqueue(...Array.from({ length: 500 }, () => (body: GenerateContentBody) => brain.answer(body)));

    let now = Date.UTC(2026, 10, 22, 1, 0);
    const machine = provideConversationServices({
      model: new GeminiModel({
        apiKey: 'test-key',
        baseUrl: fake.baseUrl,
        cache: false,
        random: () => 0,
        // The conversation's clock: the turn's deadline is set from it.
        clock: { now: () => now },
      }),
      tools: registry,
      delivery: { deliver: () => Promise.resolve({ method: 'reply' }) },
      systemInstruction: () => systemPrompt.text(),
      ...(contender === 'selection' && { stepPrompt: new StepPrompt(registry, DEFAULT_PERSONA) }),
      clock: { now: () => now },
      logger: silentLogger,
    });
    const actor = answerCheckpointsAtOnce(
      createActor(machine, { systemId: CONVERSATION_SYSTEM_ID, input: { source } }),
    );
    actor.start();
    for (const [index, turn] of TOOL_SELECTION_SCRIPT.entries()) {
      now += 60_000; // a minute between messages, as in a real chat
      brain.begin(turn);
      actor.send({
        type: 'line.messages',
        messages: [
          {
            eventId: `bench-turn-${index}`,
            source,
            sender: { userId: source.id, displayName: 'Aiko' },
            text: turn.text,
            timestamp: now,
          },
        ],
        at: now,
      });
      await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 10_000 });
    }
    const { history } = actor.getSnapshot().context;
    actor.stop();
    if (fake.rejections.length > 0) throw new Error(`the fake Gemini refused: ${fake.rejections.join('; ')}`);

    const bodies = fake.generateBodies;
    const sizes = bodies.map((body) => ({
      instruction: JSON.stringify(body.systemInstruction ?? '').length / 4,
      declarations: JSON.stringify(body.tools ?? []).length / 4,
      contents: JSON.stringify(body.contents ?? []).length / 4,
    }));
    const sum = (pick: (size: (typeof sizes)[number]) => number) =>
      Math.round(sizes.reduce((total, size) => total + pick(size), 0));
    const promptTokens = {
      instruction: sum((size) => size.instruction),
      declarations: sum((size) => size.declarations),
      contents: sum((size) => size.contents),
    };
    const succeeded = history.flatMap((entry) =>
      entry.role === 'tool'
        ? entry.results
            .filter((result) => result.response.error === undefined)
            .map((result) => `${entry.turnId}:${result.name}`)
        : [],
    );
    const needed = TOOL_SELECTION_SCRIPT.flatMap((turn, index) =>
      turn.needs.map(([name]) => `bench-turn-${index}:${name}`),
    );
    return {
      contender,
      modelCalls: bodies.length,
      declarationsPerCall:
        bodies.reduce((total, body) => total + (body.tools?.[0]?.functionDeclarations?.length ?? 0), 0) /
        bodies.length,
      promptTokens,
      totalPromptTokens: promptTokens.instruction + promptTokens.declarations + promptTokens.contents,
      neededCalls: needed.length,
      reachedCalls: needed.filter((call) => succeeded.includes(call)).length,
      toolFinderCalls: succeeded.filter((call) => call.endsWith(`:${TOOL_FINDER_NAME}`)).length,
    };
  } finally {
    await fake.close();
  }
}

/**
 * Plays the model: calls the turn's needed tools in order, then replies. A needed tool that
 * the request does not declare is asked for through the tool finder, once; a model cut off
 * from a tool would show up as a call not reached.
 */
class ScriptedBrain {
  private pending: (readonly [string, JsonObject])[] = [];
  private askedFor = new Set<string>();

  begin(turn: ScriptedTurn): void {
    this.pending = [...turn.needs];
    this.askedFor = new Set();
  }

  answer(body: GenerateContentBody): FakeAnswer {
    const declared = new Set(
      body.tools?.flatMap((tool) => tool.functionDeclarations ?? []).map((fn) => String(fn.name)),
    );
    while (this.pending.length > 0) {
      const [name, args] = this.pending[0]!;
      if (declared.has(name)) {
        this.pending.shift();
        return callAnswer(name, args);
      }
      if (declared.has(TOOL_FINDER_NAME) && !this.askedFor.has(name)) {
        this.askedFor.add(name);
        return callAnswer(TOOL_FINDER_NAME, { name });
      }
      this.pending.shift(); // unreachable: given up, and counted as not reached
    }
    return callAnswer('reply', { message: 'Here you go!' });
  }
}

function callAnswer(name: string, args: JsonObject): FakeAnswer {
  return candidateAnswer([functionCallPart(name, args)]);
}

const START = '<!-- tool-selection -->';
const END = '<!-- /tool-selection -->';

/** The figures as a section of docs/PERFORMANCE.md, between markers so it can be replaced alone. */
export function toolSelectionSection(figures: ToolSelectionFigures): string {
  const { all, selection } = figures;
  const perCall = (contender: ContenderFigures) => contender.totalPromptTokens / contender.modelCalls;
  const row = (contender: ContenderFigures) => {
    const parts = contender.promptTokens;
    const calls = contender.modelCalls;
    return `| ${contender.contender} | ${calls} | ${contender.declarationsPerCall.toFixed(1)} | ${format(perCall(contender))} | ${format(parts.instruction / calls)} / ${format(parts.declarations / calls)} / ${format(parts.contents / calls)} | ${format(contender.totalPromptTokens)} | ${contender.reachedCalls} of ${contender.neededCalls} |`;
  };
  const saved = 1 - selection.totalPromptTokens / all.totalPromptTokens;
  const savedPerCall = 1 - perCall(selection) / perCall(all);
  return `${START}
## Tool selection: prompt tokens per model call

A scripted ${figures.turns}-turn 1:1 conversation (English and Japanese) with ${figures.optionalTools} optional tools
registered (kaiwa's built-ins and ten more, \`bench/tool-selection-tools.ts\`), run through the conversation
machine and the real Gemini adapter (\`@google/genai\`) against the local fake Gemini server, without a
context cache (the path where selection narrows the declarations; with a cache every declaration stays in
it and only the step's text changes). Tokens are the characters of each request body's system
instruction, function declarations and contents, divided by 4. The model is scripted: it calls the tools
each turn needs, asking the tool finder for any the step does not offer.

| contender | model calls | tools declared per call | prompt tokens per call | instruction / declarations / contents per call | total prompt tokens | needed tool calls reached |
|---|---|---|---|---|---|---|
${row(all)}
${row(selection)}

Selection sends **${(saved * 100).toFixed(0)} % fewer** prompt tokens in total (${(savedPerCall * 100).toFixed(0)} % fewer per call; goal ≥ 30 %),
reaching ${selection.reachedCalls} of ${selection.neededCalls} needed tool calls, ${selection.toolFinderCalls} of them after asking the tool finder.
${END}`;
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Prints the figures and fails when a needed tool was not reached. */
export function reportToolSelection(figures: ToolSelectionFigures): void {
  for (const contender of [figures.all, figures.selection]) {
    console.log(
      `tool selection: ${contender.contender.padEnd(9)} ${contender.modelCalls} calls, ` +
        `${Math.round(contender.totalPromptTokens / contender.modelCalls)} prompt tokens per call, ` +
        `${contender.totalPromptTokens} in total, reached ${contender.reachedCalls}/${contender.neededCalls} needed tool calls`,
    );
    if (contender.reachedCalls !== contender.neededCalls) {
      throw new Error(
        `${contender.contender}: ${contender.neededCalls - contender.reachedCalls} needed tool calls not reached`,
      );
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await measureToolSelection();
  reportToolSelection(figures);
  await updatePerformanceSection('tool-selection', toolSelectionSection(figures));
}
