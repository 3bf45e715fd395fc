import {
  chartFont,
  type ChartLayout,
  type PlacedEdge,
  type PlacedState,
  type Point,
} from './chart-layout.js';

/**
 * Writes a laid-out chart as a standalone SVG. Every state is a `<g class="kc-state">` with
 * `data-state-id`, every arrow a `<g class="kc-transition">` with its ends and event types, so
 * the inspector page highlights the current state and the last transition by toggling
 * `kc-active` / `kc-taken`. Styles are scoped under `.kc-chart`: the SVG can be inlined.
 */
export function renderSvg(layout: ChartLayout, title: string): string {
  const { width, height } = layout;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="kc-chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="kc-title">`,
    `<title id="kc-title">${escapeXml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '<defs><marker id="kc-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="kc-arrowhead"/></marker></defs>',
    `<rect class="kc-background" x="0" y="0" width="${width}" height="${height}"/>`,
  ];
  // Containers first, so nested states and arrows draw on top of them.
  const ordered = [...layout.states].sort((a, b) => Number(b.compound) - Number(a.compound));
  for (const state of ordered) parts.push(renderState(state));
  for (const initial of layout.initials) {
    parts.push(
      `<circle class="kc-initial" data-initial-of="${escapeXml(initial.parent)}" cx="${initial.x}" cy="${initial.y}" r="6"/>`,
    );
  }
  for (const edge of layout.edges) parts.push(renderEdge(edge));
  if (layout.footnote) {
    parts.push(`<text class="kc-footnote" x="16" y="${height - 10}">${escapeXml(layout.footnote)}</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function renderState(state: PlacedState): string {
  const id = escapeXml(state.id);
  const classes = ['kc-state', state.compound ? 'kc-compound' : 'kc-simple', `kc-${state.type}`].join(' ');
  const titleY = state.compound ? state.y + 22 : state.y + 21;
  const titleX = state.compound ? state.x + 14 : state.x + state.width / 2;
  const anchor = state.compound ? 'start' : 'middle';
  const lines = state.lines.map(
    (line, index) =>
      `<text class="kc-detail" x="${fixed(state.x + state.width / 2)}" y="${fixed(titleY + 17 + index * chartFont.lineHeight)}" text-anchor="middle">${escapeXml(line)}</text>`,
  );
  return [
    `<g class="${classes}" id="state-${id}" data-state-id="${id}">`,
    `<rect x="${state.x}" y="${state.y}" width="${state.width}" height="${state.height}" rx="${state.compound ? 10 : 8}"/>`,
    // The ring before the name: it is a rect of the state and gets its fill.
    ...(state.type === 'final'
      ? [
          `<rect class="kc-final-ring" x="${state.x + 3}" y="${state.y + 3}" width="${state.width - 6}" height="${state.height - 6}" rx="6"/>`,
        ]
      : []),
    `<text class="kc-name" x="${fixed(titleX)}" y="${fixed(titleY)}" text-anchor="${anchor}">${escapeXml(state.key)}</text>`,
    ...lines,
    '</g>',
  ].join('');
}

function renderEdge(edge: PlacedEdge): string {
  const kind = edge.kinds.includes('initial') ? 'kc-initial-edge' : `kc-${edge.kinds[0] ?? 'event'}`;
  const parts = [
    `<g class="kc-transition ${kind}" id="transition-${edge.id}" data-source="${escapeXml(edge.source)}" data-target="${escapeXml(edge.target)}" data-events="${escapeXml(edge.eventTypes.join(' '))}">`,
    `<path d="${pathOf(edge.points)}" marker-end="url(#kc-arrow)"/>`,
  ];
  if (edge.label) {
    const { x, y, lines } = edge.label;
    const width = Math.max(...lines.map((line) => line.length)) * chartFont.textSize * 0.6 + 8;
    parts.push(
      `<rect class="kc-label-bg" x="${fixed(x - width / 2)}" y="${fixed(y)}" width="${fixed(width)}" height="${lines.length * 14 + 4}" rx="3"/>`,
      ...lines.map(
        (line, index) =>
          `<text class="kc-label" x="${fixed(x)}" y="${fixed(y + 13 + index * 14)}" text-anchor="middle">${escapeXml(line)}</text>`,
      ),
    );
  }
  parts.push('</g>');
  return parts.join('');
}

function pathOf(points: readonly Point[]): string {
  return points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x},${point.y}`).join(' ');
}

function fixed(value: number): string {
  return String(Math.round(value * 10) / 10);
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = [
  `.kc-chart{font-family:${chartFont.family};}`,
  '.kc-chart .kc-background{fill:#ffffff;}',
  '.kc-chart .kc-state>rect{fill:#f4f7fb;stroke:#5b6b82;stroke-width:1.2;}',
  '.kc-chart .kc-compound>rect{fill:#fbfcfe;stroke-dasharray:none;}',
  `.kc-chart .kc-name{font-size:${chartFont.titleSize}px;font-weight:700;fill:#1d2733;}`,
  `.kc-chart .kc-detail{font-size:${chartFont.textSize}px;fill:#5b6b82;}`,
  '.kc-chart .kc-final-ring{fill:none;stroke:#5b6b82;}',
  '.kc-chart .kc-initial{fill:#1d2733;}',
  '.kc-chart .kc-transition path{fill:none;stroke:#7d8ba0;stroke-width:1.3;}',
  '.kc-chart .kc-arrowhead{fill:#7d8ba0;}',
  '.kc-chart .kc-label-bg{fill:#ffffff;fill-opacity:0.9;}',
  `.kc-chart .kc-label{font-size:${chartFont.textSize}px;fill:#364354;}`,
  `.kc-chart .kc-footnote{font-size:${chartFont.textSize}px;fill:#5b6b82;font-style:italic;}`,
  '.kc-chart .kc-state.kc-active>rect{fill:#06c755;fill-opacity:0.16;stroke:#06a046;stroke-width:2.5;}',
  '.kc-chart .kc-simple.kc-active>rect{fill:#06c755;fill-opacity:0.85;}',
  '.kc-chart .kc-simple.kc-active .kc-name,.kc-chart .kc-simple.kc-active .kc-detail{fill:#ffffff;}',
  '.kc-chart .kc-transition.kc-taken path{stroke:#06a046;stroke-width:2.5;}',
  '.kc-chart .kc-transition.kc-taken .kc-label{fill:#06a046;font-weight:700;}',
].join('');
