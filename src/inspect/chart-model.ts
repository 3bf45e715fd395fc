import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** The kinds of state node XState knows. */
export type ChartStateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state node of the chart, children included. */
export interface ChartState {
  /** XState's id: `conversation.toolCall.running`. */
  readonly id: string;
  readonly key: string;
  /** Keys from the root: `['toolCall', 'running']`. */
  readonly path: readonly string[];
  readonly type: ChartStateType;
  /** The id of the initial child of a compound state. */
  readonly initial?: string;
  readonly children: readonly ChartState[];
  /** The `src` of every actor the state invokes. */
  readonly invokes: readonly string[];
  /** Events the state handles without leaving it (targetless transitions). */
  readonly handles: readonly string[];
  readonly description?: string;
}

/** How a transition is triggered. */
export type ChartTransitionKind = 'event' | 'always' | 'after' | 'done' | 'error';

/** One transition with a target; a transition with several targets is one per target. */
export interface ChartTransition {
  readonly source: string;
  readonly target: string;
  /** XState's event type: `''` for eventless, `xstate.done.actor.<invoke id>` for onDone. */
  readonly eventType: string;
  readonly kind: ChartTransitionKind;
  readonly guard?: string;
  /** For `done`/`error`: the invoked actor's `src`. */
  readonly invoke?: string;
  /** What the chart prints on the arrow: `always [hasPendingTurn]`, `generate.onDone`. */
  readonly label: string;
}

/** A machine's states and transitions, read from its definition: what every chart is drawn from. */
export interface ChartModel {
  /** The machine's id: the prefix of every state id. */
  readonly id: string;
  /** The root's children, in document order. */
  readonly states: readonly ChartState[];
  readonly initial?: string;
  /** Transitions with a target, in document order. */
  readonly transitions: readonly ChartTransition[];
  /** Events the root handles in every state without a transition (`line.message`). */
  readonly rootHandles: readonly string[];
}

/**
 * Reads a machine's states and transitions from its definition, so every chart and export
 * follows the code. Inline guards show as `guard`; named ones by name.
 * @example
 * const model = buildChartModel(conversationMachine);
 * model.transitions.map((transition) => transition.label);
 */
export function buildChartModel(machine: Pick<AnyStateMachine, 'root'>): ChartModel {
  const transitions: ChartTransition[] = [];
  const root = machine.root;
  const states = childrenOf(root).map((node) => readState(node, transitions));
  const rootHandles = collectTransitions(root).flatMap((transition) =>
    transition.target ? [] : [eventLabel(root, eventTypeOf(transition))],
  );
  return {
    id: root.id,
    states,
    ...initialOf(root),
    transitions,
    rootHandles: [...new Set(rootHandles)],
  };
}

/** Every state of the model, depth first. */
export function allStates(model: ChartModel): ChartState[] {
  const result: ChartState[] = [];
  const visit = (state: ChartState) => {
    result.push(state);
    state.children.forEach(visit);
  };
  model.states.forEach(visit);
  return result;
}

/**
 * The ids of the states active in a state value, outermost first.
 * @example
 * activeStateIds('conversation', { toolCall: 'running' }); // ['conversation.toolCall', 'conversation.toolCall.running']
 */
export function activeStateIds(machineId: string, value: unknown, prefix = machineId): string[] {
  if (typeof value === 'string') return [`${prefix}.${value}`];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => [
    `${prefix}.${key}`,
    ...activeStateIds(machineId, child, `${prefix}.${key}`),
  ]);
}

/** A state value as one line: `idle`, `toolCall.running`, `a.x, b.y` for parallel regions. */
export function stateValueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, child]) => {
      const inner = stateValueText(child);
      return inner ? `${key}.${inner}` : key;
    })
    .join(', ');
}

function readState(node: AnyStateNode, transitions: ChartTransition[]): ChartState {
  const handles: string[] = [];
  for (const transition of collectTransitions(node)) {
    if (!transition.target || transition.target.length === 0) {
      handles.push(eventLabel(node, eventTypeOf(transition)));
      continue;
    }
    for (const target of transition.target) {
      transitions.push(
        describeTransition(node, eventTypeOf(transition), target.id, guardName(transition.guard)),
      );
    }
  }
  const children = childrenOf(node).map((child) => readState(child, transitions));
  return {
    id: node.id,
    key: node.key,
    path: [...node.path],
    type: node.type,
    ...initialOf(node),
    children,
    invokes: node.invoke.map((invoke) => srcName(invoke.src)),
    handles: [...new Set(handles)],
    ...(node.description && { description: node.description }),
  };
}

type AnyTransition = AnyStateNode['transitions'] extends Map<string, (infer T)[]> ? T : never;

/** `on`, `after`, `onDone`/`onError` (all in `transitions`) and then `always`. */
function collectTransitions(node: AnyStateNode): AnyTransition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

/** XState types event descriptors loosely; they are strings (`''` for eventless). */
function eventTypeOf(transition: AnyTransition): string {
  return String(transition.eventType);
}

function childrenOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states) as AnyStateNode[];
}

function initialOf(node: AnyStateNode): { initial?: string } {
  if (node.type !== 'compound') return {};
  const target = node.initial.target[0];
  return target ? { initial: target.id } : {};
}

function describeTransition(
  node: AnyStateNode,
  eventType: string,
  target: string,
  guard: string | undefined,
): ChartTransition {
  const trigger = classify(node, eventType);
  const label = `${trigger.text}${guard ? ` [${guard}]` : ''}`;
  return {
    source: node.id,
    target,
    eventType,
    kind: trigger.kind,
    ...(guard && { guard }),
    ...(trigger.invoke && { invoke: trigger.invoke }),
    label,
  };
}

function eventLabel(node: AnyStateNode, eventType: string): string {
  return classify(node, eventType).text;
}

/** Turns XState's internal event types into what a reader recognises from the machine's config. */
function classify(
  node: AnyStateNode,
  eventType: string,
): { kind: ChartTransitionKind; text: string; invoke?: string } {
  if (eventType === '') return { kind: 'always', text: 'always' };
  for (const [prefix, kind, suffix] of [
    ['xstate.done.actor.', 'done', 'onDone'],
    ['xstate.error.actor.', 'error', 'onError'],
  ] as const) {
    if (!eventType.startsWith(prefix)) continue;
    const invoke = node.invoke.find((definition) => `${prefix}${definition.id}` === eventType);
    if (invoke) {
      const src = srcName(invoke.src);
      return { kind, text: `${src}.${suffix}`, invoke: src };
    }
  }
  // `xstate.after.<delay>.<state id>`: a delay in ms, or a named one (`delays` in setup).
  const delayed = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (delayed) {
    const delay = delayed[1]!;
    return { kind: 'after', text: /^\d+$/.test(delay) ? `after ${delay}ms` : `after ${delay}` };
  }
  return { kind: 'event', text: eventType };
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name && guard.name !== 'guard' ? guard.name : 'guard';
  if (guard && typeof guard === 'object' && typeof (guard as { type?: unknown }).type === 'string') {
    // Static parameters tell apart the uses of one guard: `planIs(turn)`.
    const { type, params } = guard as { type: string; params?: unknown };
    const values =
      params && typeof params === 'object' ? Object.values(params as Record<string, unknown>) : [];
    const shown = values.filter((value) => ['string', 'number', 'boolean'].includes(typeof value));
    return shown.length > 0 && shown.length === values.length ? `${type}(${shown.join(', ')})` : type;
  }
  return 'guard';
}

function srcName(src: unknown): string {
  if (typeof src === 'string') return src;
  const id = (src as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : 'actor';
}
