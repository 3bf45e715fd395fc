import type { ChartModel, ChartState, ChartTransition } from './chart-model.js';

type TransitionConfig = { target: string; guard?: string };
type StateConfig = {
  type?: 'final' | 'parallel' | 'history';
  description?: string;
  initial?: string;
  invoke?: { src: string; onDone?: TransitionConfig[]; onError?: TransitionConfig[] }[];
  on?: Record<string, TransitionConfig[] | Record<string, never>>;
  after?: Record<string, TransitionConfig[]>;
  always?: TransitionConfig[];
  states?: Record<string, StateConfig>;
};

/**
 * The machine as a plain XState config (JSON): paste it into Stately's editor ("Import") to
 * open the same chart there. Guards keep their names; actions, being code, are left out.
 */
export function toStatelyConfig(model: ChartModel): Record<string, unknown> {
  const root: StateConfig & { id: string } = {
    id: model.id,
    ...(model.initial && { initial: keyOf(model, model.initial) }),
  };
  if (model.rootHandles.length > 0) root.on = handlers(model.rootHandles);
  root.states = Object.fromEntries(model.states.map((state) => [state.key, stateConfig(model, state)]));
  return root;
}

function stateConfig(model: ChartModel, state: ChartState): StateConfig {
  const outgoing = model.transitions.filter((transition) => transition.source === state.id);
  const config: StateConfig = {};
  if (state.type === 'final' || state.type === 'parallel' || state.type === 'history')
    config.type = state.type;
  if (state.description) config.description = state.description;
  if (state.initial) config.initial = keyOf(model, state.initial);
  if (state.invokes.length > 0) {
    config.invoke = state.invokes.map((src) => {
      const onDone = outgoing.filter((transition) => transition.kind === 'done' && transition.invoke === src);
      const onError = outgoing.filter(
        (transition) => transition.kind === 'error' && transition.invoke === src,
      );
      return {
        src,
        ...(onDone.length > 0 && { onDone: onDone.map(transitionConfig) }),
        ...(onError.length > 0 && { onError: onError.map(transitionConfig) }),
      };
    });
  }
  const on: NonNullable<StateConfig['on']> = handlers(state.handles);
  for (const transition of outgoing.filter((candidate) => candidate.kind === 'event')) {
    const list = on[transition.eventType];
    on[transition.eventType] = [...(Array.isArray(list) ? list : []), transitionConfig(transition)];
  }
  if (Object.keys(on).length > 0) config.on = on;
  const after: Record<string, TransitionConfig[]> = {};
  for (const transition of outgoing.filter((candidate) => candidate.kind === 'after')) {
    const delay = /^xstate\.after\.(\d+)\./.exec(transition.eventType)?.[1] ?? '0';
    after[delay] = [...(after[delay] ?? []), transitionConfig(transition)];
  }
  if (Object.keys(after).length > 0) config.after = after;
  const always = outgoing.filter((transition) => transition.kind === 'always');
  if (always.length > 0) config.always = always.map(transitionConfig);
  if (state.children.length > 0) {
    config.states = Object.fromEntries(state.children.map((child) => [child.key, stateConfig(model, child)]));
  }
  return config;
}

/** Events handled without a transition: targetless, so Stately shows them on the state. */
function handlers(events: readonly string[]): Record<string, Record<string, never>> {
  return Object.fromEntries(events.filter((event) => event !== 'always').map((event) => [event, {}]));
}

function transitionConfig(transition: ChartTransition): TransitionConfig {
  return { target: `#${transition.target}`, ...(transition.guard && { guard: transition.guard }) };
}

function keyOf(model: ChartModel, id: string): string {
  return id.slice(id.lastIndexOf('.') + 1) || model.id;
}
