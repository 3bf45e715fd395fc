import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk.bundled.js';
import type { ChartModel, ChartState, ChartTransitionKind } from './chart-model.js';

/** Text sizes are estimated, never measured: a monospace font makes the estimate hold. */
export const chartFont = {
  family: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
  titleSize: 13,
  textSize: 11,
  lineHeight: 15,
} as const;

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface PlacedState {
  readonly id: string;
  readonly key: string;
  readonly type: ChartState['type'];
  readonly compound: boolean;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Invoked actors and events handled in place, one per line under the title. */
  readonly lines: readonly string[];
}

export interface PlacedInitial {
  /** The state whose initial child this dot points to (the machine id for the root). */
  readonly parent: string;
  readonly x: number;
  readonly y: number;
}

/** One arrow; transitions between the same two states share it. */
export interface PlacedEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** XState event types of the transitions drawn (`''` for eventless). */
  readonly eventTypes: readonly string[];
  readonly kinds: readonly (ChartTransitionKind | 'initial')[];
  readonly points: readonly Point[];
  readonly label?: { readonly x: number; readonly y: number; readonly lines: readonly string[] };
}

export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  readonly states: readonly PlacedState[];
  readonly initials: readonly PlacedInitial[];
  readonly edges: readonly PlacedEdge[];
  /** Events every state handles without a transition, printed under the chart. */
  readonly footnote?: string;
}

const INITIAL_SIZE = 12;
const FOOTNOTE_HEIGHT = 24;

/**
 * Lays the chart out with ELK's layered algorithm (top to bottom, compound states as
 * containers). ELK is deterministic, so the same model always gives the same drawing.
 */
export async function layoutChart(model: ChartModel): Promise<ChartLayout> {
  const edges = mergedEdges(model);
  const graph: ElkNode = {
    id: model.id,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.json.edgeCoords': 'ROOT',
      'elk.json.shapeCoords': 'ROOT',
      'elk.padding': '[top=16,left=16,bottom=16,right=16]',
      'elk.spacing.nodeNode': '36',
      'elk.layered.spacing.nodeNodeBetweenLayers': '44',
      'elk.spacing.edgeNode': '18',
      'elk.spacing.edgeEdge': '12',
      'elk.spacing.edgeLabel': '4',
      'elk.layered.spacing.edgeNodeBetweenLayers': '18',
      'elk.edgeLabels.placement': 'CENTER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
      'elk.randomSeed': '1',
    },
    children: [...initialNode(model.id, model.initial), ...model.states.map(elkNode)],
    edges: edges.map((edge): ElkExtendedEdge => ({
      id: edge.id,
      sources: [edge.source],
      targets: [edge.target],
      ...(edge.lines.length > 0 && {
        labels: [{ id: `${edge.id}-label`, text: edge.lines.join('\n'), ...labelSize(edge.lines) }],
      }),
    })),
  };
  const laidOut = await (await createElk()).layout(graph);

  const states: PlacedState[] = [];
  const initials: PlacedInitial[] = [];
  const visit = (node: ElkNode) => {
    for (const child of node.children ?? []) {
      const state = stateById(model, child.id);
      if (child.id.startsWith('initial:')) {
        initials.push({
          parent: child.id.slice('initial:'.length),
          x: round((child.x ?? 0) + INITIAL_SIZE / 2),
          y: round((child.y ?? 0) + INITIAL_SIZE / 2),
        });
      } else if (state) {
        states.push({
          id: state.id,
          key: state.key,
          type: state.type,
          compound: state.children.length > 0,
          x: round(child.x ?? 0),
          y: round(child.y ?? 0),
          width: round(child.width ?? 0),
          height: round(child.height ?? 0),
          lines: detailLines(state),
        });
      }
      visit(child);
    }
  };
  visit(laidOut);

  const placedEdges = edges.map((edge): PlacedEdge => {
    const elkEdge = findEdge(laidOut, edge.id);
    const section = elkEdge?.sections?.[0];
    const points = section
      ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(roundPoint)
      : [];
    const label = elkEdge?.labels?.[0];
    return {
      id: edge.id,
      source: edge.source,
      target: edge.target,
      eventTypes: edge.eventTypes,
      kinds: edge.kinds,
      points,
      ...(label &&
        edge.lines.length > 0 && {
          label: {
            x: round((label.x ?? 0) + (label.width ?? 0) / 2),
            y: round(label.y ?? 0),
            lines: edge.lines,
          },
        }),
    };
  });

  const footnote =
    model.rootHandles.length > 0
      ? `Every state handles ${model.rootHandles.join(', ')} without a transition.`
      : undefined;
  const width = Math.max(
    round(laidOut.width ?? 0),
    footnote ? Math.ceil(textWidth(footnote, chartFont.textSize)) + 32 : 0,
  );
  return {
    width,
    height: round(laidOut.height ?? 0) + (footnote ? FOOTNOTE_HEIGHT : 0),
    states,
    initials,
    edges: placedEdges,
    ...(footnote && { footnote }),
  };
}

/**
 * elkjs is loaded on first use, so a server without it (it is a development dependency) still
 * starts; only drawing fails. It is CommonJS: its constructor is the module's `default` export.
 */
async function createElk() {
  const module = await import('elkjs/lib/elk.bundled.js');
  return new module.default.default();
}

/** Width of a monospace text line: CJK and other wide characters take two cells. */
export function textWidth(text: string, fontSize: number): number {
  let cells = 0;
  for (const char of text)
    cells += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/u.test(char) ? 2 : 1;
  return cells * fontSize * 0.6;
}

/** What a state box prints under its name. */
function detailLines(state: ChartState): string[] {
  if (state.children.length > 0) return [];
  return [...state.invokes.map((src) => `invoke ${src}`), ...state.handles.map((event) => `on ${event}`)];
}

function elkNode(state: ChartState): ElkNode {
  const titleWidth = textWidth(state.key, chartFont.titleSize) + 28;
  if (state.children.length > 0) {
    return {
      id: state.id,
      layoutOptions: {
        'elk.padding': '[top=40,left=18,bottom=18,right=18]',
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${Math.ceil(titleWidth)},60)`,
      },
      children: [...initialNode(state.id, state.initial), ...state.children.map(elkNode)],
    };
  }
  const lines = detailLines(state);
  const width = Math.max(titleWidth, ...lines.map((line) => textWidth(line, chartFont.textSize) + 24), 96);
  return {
    id: state.id,
    width: Math.ceil(width),
    height: 34 + lines.length * chartFont.lineHeight,
  };
}

function initialNode(parent: string, initial: string | undefined): ElkNode[] {
  return initial ? [{ id: `initial:${parent}`, width: INITIAL_SIZE, height: INITIAL_SIZE }] : [];
}

interface MergedEdge {
  id: string;
  source: string;
  target: string;
  eventTypes: string[];
  kinds: (ChartTransitionKind | 'initial')[];
  lines: string[];
}

/** One arrow per (source, target) pair, labelled with every transition it stands for. */
function mergedEdges(model: ChartModel): MergedEdge[] {
  const edges: MergedEdge[] = [];
  const initialEdge = (parent: string, initial: string | undefined) => {
    if (initial)
      edges.push({
        id: `e${edges.length}`,
        source: `initial:${parent}`,
        target: initial,
        eventTypes: [],
        kinds: ['initial'],
        lines: [],
      });
  };
  initialEdge(model.id, model.initial);
  const visit = (state: ChartState) => {
    initialEdge(state.id, state.initial);
    state.children.forEach(visit);
  };
  model.states.forEach(visit);
  for (const transition of model.transitions) {
    const existing = edges.find(
      (edge) => edge.source === transition.source && edge.target === transition.target,
    );
    if (existing) {
      existing.eventTypes.push(transition.eventType);
      existing.kinds.push(transition.kind);
      if (!existing.lines.includes(transition.label)) existing.lines.push(transition.label);
      continue;
    }
    edges.push({
      id: `e${edges.length}`,
      source: transition.source,
      target: transition.target,
      eventTypes: [transition.eventType],
      kinds: [transition.kind],
      lines: [transition.label],
    });
  }
  return edges;
}

function labelSize(lines: readonly string[]) {
  return {
    width: Math.ceil(Math.max(...lines.map((line) => textWidth(line, chartFont.textSize))) + 8),
    height: lines.length * 14 + 4,
  };
}

function stateById(model: ChartModel, id: string): ChartState | undefined {
  const search = (states: readonly ChartState[]): ChartState | undefined => {
    for (const state of states) {
      if (state.id === id) return state;
      const found = search(state.children);
      if (found) return found;
    }
    return undefined;
  };
  return search(model.states);
}

function findEdge(node: ElkNode, id: string): ElkExtendedEdge | undefined {
  const own = node.edges?.find((edge) => edge.id === id);
  if (own) return own;
  for (const child of node.children ?? []) {
    const found = findEdge(child, id);
    if (found) return found;
  }
  return undefined;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function roundPoint(point: Point): Point {
  return { x: round(point.x), y: round(point.y) };
}
