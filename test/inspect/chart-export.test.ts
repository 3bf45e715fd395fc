import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createMachine, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { chartFiles } from '../../scripts/chart.js';
import { allStates, buildChartModel, exportChart, toMermaid } from '../../src/inspect/index.js';
import { conversationMachine } from '../../src/machines/index.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm run chart', () => {
  it('the committed docs/{conversation,source}-machine.{mmd,svg,json} are exactly what the machines produce', async () => {
    const files = await chartFiles();

    expect(Object.keys(files).sort()).toEqual([
      'docs/conversation-machine.json',
      'docs/conversation-machine.mmd',
      'docs/conversation-machine.svg',
      'docs/source-machine.json',
      'docs/source-machine.mmd',
      'docs/source-machine.svg',
    ]);
    for (const [file, generated] of Object.entries(files)) {
      const committed = await readFile(path.join(root, file), 'utf8').catch(() => '(missing)');
      expect(committed, `${file} is stale: run npm run chart`).toBe(generated);
    }
  });

  it('is deterministic: two exports of the same machine are identical', async () => {
    const [first, second] = await Promise.all([
      exportChart(conversationMachine),
      exportChart(conversationMachine),
    ]);
    expect(second.svg).toBe(first.svg);
    expect(second.mermaid).toBe(first.mermaid);
  });

  it('the README shows the generated SVG', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/!\[[^\]]*\]\(docs\/conversation-machine\.svg\)/);
  });
});

describe('the chart model', () => {
  const model = buildChartModel(conversationMachine);

  it('reads every state of the machine, the compound toolCall with its children and initial state', () => {
    const ids = allStates(model).map((state) => state.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'conversation.idle',
        'conversation.receive',
        'conversation.generate',
        'conversation.toolCall',
        'conversation.toolCall.starting',
        'conversation.toolCall.securing',
        'conversation.toolCall.running',
        'conversation.toolCall.delivering',
        'conversation.toolCall.delivering.securing',
        'conversation.toolCall.delivering.sending',
        'conversation.toolCall.deciding',
        'conversation.apologize',
        'conversation.apologize.securing',
        'conversation.apologize.sending',
        'conversation.done',
      ]),
    );
    expect(model.initial).toBe('conversation.idle');
    const toolCall = model.states.find((state) => state.key === 'toolCall');
    expect(toolCall).toMatchObject({ type: 'compound', initial: 'conversation.toolCall.starting' });
    expect(model.rootHandles).toContain('line.unsend');
  });

  it('names triggers as the machine author wrote them: always with guards, onDone/onError of invokes', () => {
    const labels = model.transitions.map(
      (transition) => `${transition.source} -> ${transition.target}: ${transition.label}`,
    );
    expect(labels).toEqual(
      expect.arrayContaining([
        'conversation.idle -> conversation.receive: line.messages',
        'conversation.toolCall.starting -> conversation.toolCall.securing: always [stepHasSideEffects]',
        'conversation.toolCall.delivering.securing -> conversation.toolCall.delivering.sending: checkpoint.done',
        'conversation.generate -> conversation.toolCall: generate.onDone [hasFunctionCalls]',
        'conversation.generate -> conversation.apologize: generate.onError',
        'conversation.toolCall.deciding -> conversation.generate: always',
        'conversation.done -> conversation.idle: always',
      ]),
    );
  });
});

describe('Mermaid export', () => {
  const model = buildChartModel(conversationMachine);
  const mermaid = toMermaid(model);

  it('has every state of the machine and every transition with its label', () => {
    expect(mermaid.startsWith('stateDiagram-v2\n')).toBe(true);
    for (const state of allStates(model))
      expect(mermaid).toMatch(new RegExp(`^\\s*(state )?("${state.key}"|${state.key}\\b)`, 'm'));
    for (const transition of model.transitions) expect(mermaid).toContain(`: ${transition.label}`);
    expect(mermaid).toContain('state toolCall {');
    expect(mermaid).toContain('[*] --> starting');
    expect(mermaid).toContain('generate : invoke generate');
  });

  it('writes nested transitions inside their compound block and names clashing keys by path', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: { initial: 'done', states: { done: { on: { NEXT: 'other' } }, other: {} }, on: { LEAVE: 'done' } },
        done: { type: 'final' },
      },
    });
    const text = toMermaid(buildChartModel(machine));
    expect(text).toContain('state "done" as a_done');
    expect(text).toMatch(/state a \{[^}]*a_done --> other: NEXT[^}]*\}/s);
    expect(text).toContain('a --> done: LEAVE');
    expect(text).toContain('done --> [*]');
  });
});

describe('SVG export', () => {
  it('has one element per state with its id, the compound state around its children, every arrow', async () => {
    const { svg, model } = await exportChart(conversationMachine);
    for (const state of allStates(model)) expect(svg).toContain(`data-state-id="${state.id}"`);
    expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const box = (id: string) => {
      const match = new RegExp(
        `data-state-id="${id.replace(/\./g, '\\.')}"><rect x="([\\d.]+)" y="([\\d.]+)" width="([\\d.]+)" height="([\\d.]+)"`,
      ).exec(svg);
      const [x, y, width, height] = (match ?? []).slice(1).map(Number);
      return { x: x!, y: y!, right: x! + width!, bottom: y! + height! };
    };
    const toolCall = box('conversation.toolCall');
    for (const child of ['running', 'delivering', 'deciding']) {
      const inner = box(`conversation.toolCall.${child}`);
      expect(inner.x).toBeGreaterThan(toolCall.x);
      expect(inner.y).toBeGreaterThan(toolCall.y);
      expect(inner.right).toBeLessThan(toolCall.right);
      expect(inner.bottom).toBeLessThan(toolCall.bottom);
    }
    expect(svg).toContain('data-source="conversation.generate" data-target="conversation.toolCall"');
  });
});

describe('Stately export', () => {
  it('is a plain XState config that recreates the same states and transitions', async () => {
    const { stately, model } = await exportChart(conversationMachine);
    const json = JSON.parse(JSON.stringify(stately)) as Parameters<typeof createMachine>[0];
    const recreated = buildChartModel(setup({}).createMachine(json as never));

    expect(allStates(recreated).map((state) => state.id)).toEqual(allStates(model).map((state) => state.id));
    const shape = (transitions: typeof model.transitions) =>
      transitions.map(({ source, target, kind, guard, label }) => ({ source, target, kind, guard, label }));
    expect(shape(recreated.transitions)).toEqual(shape(model.transitions));
  });
});
