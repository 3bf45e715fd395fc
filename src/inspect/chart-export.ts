import type { AnyStateMachine } from 'xstate';
import { buildChartModel, type ChartModel } from './chart-model.js';
import { layoutChart } from './chart-layout.js';
import { toMermaid } from './mermaid-export.js';
import { toStatelyConfig } from './stately-export.js';
import { renderSvg } from './svg-renderer.js';

/** Everything drawn from one machine definition. */
export interface ChartExport {
  readonly model: ChartModel;
  /** Mermaid `stateDiagram-v2` text. */
  readonly mermaid: string;
  /** A standalone SVG with an id per state (`data-state-id`). */
  readonly svg: string;
  /** The machine as a plain XState config, for Stately's editor. */
  readonly stately: Record<string, unknown>;
}

/**
 * Draws a machine in every format kaiwa ships: `npm run chart` writes these under `docs/`
 * and the inspector serves them. Pure and deterministic.
 * @example
 * const { mermaid, svg } = await exportChart(conversationMachine);
 */
export async function exportChart(machine: AnyStateMachine): Promise<ChartExport> {
  const model = buildChartModel(machine);
  const header = [
    `The ${model.id} machine, generated from its definition by \`npm run chart\`. Do not edit by hand.`,
  ];
  return {
    model,
    mermaid: toMermaid(model, header),
    svg: renderSvg(await layoutChart(model), `The ${model.id} state machine`),
    stately: toStatelyConfig(model),
  };
}
