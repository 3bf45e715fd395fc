import { allStates, type ChartModel, type ChartState, type ChartTransition } from './chart-model.js';

/**
 * The chart as a Mermaid `stateDiagram-v2`: every state (compound ones as blocks with their own
 * `[*]`), every transition with its trigger and guard, invoked actors and targetless handlers
 * as state descriptions. Deterministic: the same machine gives the same text.
 */
export function toMermaid(model: ChartModel, header: readonly string[] = []): string {
  const names = mermaidNames(model);
  const name = (id: string) => names.get(id) ?? id;
  const byContainer = groupByContainer(model);
  const lines: string[] = ['stateDiagram-v2', ...header.map((line) => `  %% ${line}`)];

  const writeLevel = (
    containerId: string,
    states: readonly ChartState[],
    initial: string | undefined,
    indent: string,
  ) => {
    if (initial) lines.push(`${indent}[*] --> ${name(initial)}`);
    for (const state of states) {
      const alias = name(state.id);
      if (alias !== state.key) lines.push(`${indent}state "${state.key}" as ${alias}`);
      if (state.children.length > 0) {
        lines.push(`${indent}state ${alias} {`);
        writeLevel(state.id, state.children, state.initial, `${indent}  `);
        lines.push(`${indent}}`);
      }
      const description = descriptionLines(state);
      // Declared in its own block, so a later transition cannot create it at the top level.
      if (alias === state.key && state.children.length === 0 && description.length === 0)
        lines.push(`${indent}${alias}`);
      for (const line of description) lines.push(`${indent}${alias} : ${line}`);
      if (state.type === 'final') lines.push(`${indent}${alias} --> [*]`);
    }
    for (const transition of byContainer.get(containerId) ?? []) {
      lines.push(`${indent}${name(transition.source)} --> ${name(transition.target)}: ${transition.label}`);
    }
  };
  writeLevel(model.id, model.states, model.initial, '  ');
  if (model.rootHandles.length > 0 && model.initial) {
    lines.push(
      `  note right of ${name(model.initial)} : every state handles ${model.rootHandles.join(', ')} (no transition)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What a state does besides its transitions: invoked actors, events it handles in place. */
function descriptionLines(state: ChartState): string[] {
  // Mermaid draws descriptions only on simple states.
  if (state.children.length > 0) return [];
  return [
    ...(state.description ? [state.description] : []),
    ...state.invokes.map((src) => `invoke ${src}`),
    ...state.handles.map((event) => `on ${event}`),
  ];
}

/**
 * Mermaid's state names are global: a state keeps its key unless another state has the same
 * key, then it is named by its path (`toolCall_done`).
 */
function mermaidNames(model: ChartModel): Map<string, string> {
  const states = allStates(model);
  const counts = new Map<string, number>();
  for (const state of states) counts.set(state.key, (counts.get(state.key) ?? 0) + 1);
  return new Map(
    states.map((state) => [
      state.id,
      (counts.get(state.key) ?? 0) > 1 || !/^[A-Za-z_][\w]*$/.test(state.key)
        ? state.path.map((part) => part.replace(/\W/g, '_')).join('_')
        : state.key,
    ]),
  );
}

/** A transition belongs to the block of the innermost compound state holding both its ends. */
function groupByContainer(model: ChartModel): Map<string, ChartTransition[]> {
  const parents = new Map<string, string>();
  const visit = (parent: string, state: ChartState) => {
    parents.set(state.id, parent);
    state.children.forEach((child) => visit(state.id, child));
  };
  model.states.forEach((state) => visit(model.id, state));
  const ancestors = (id: string) => {
    const chain: string[] = [];
    for (let current = parents.get(id); current; current = parents.get(current)) chain.push(current);
    return chain;
  };
  const groups = new Map<string, ChartTransition[]>();
  for (const transition of model.transitions) {
    const targetAncestors = new Set(ancestors(transition.target));
    const container = ancestors(transition.source).find((id) => targetAncestors.has(id)) ?? model.id;
    groups.set(container, [...(groups.get(container) ?? []), transition]);
  }
  return groups;
}
