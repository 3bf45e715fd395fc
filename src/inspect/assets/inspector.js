// kaiwa's live inspector: the conversation machine with each source's current state
// highlighted, its context, and its transition journal — live over server-sent events,
// or replayed step by step. Plain DOM, no framework, nothing from a CDN.

// Behind INSPECT_TOKEN the session is an HttpOnly cookie the browser sends by itself (same
// origin, the event stream included): no address this page asks for carries the token.

import { loadLifecycleChart, showLifecycle } from './lifecycle-panel.js';
import { historyText } from './history-text.js';
import { ago, clock, duration } from './time-format.js';

const state = {
  sources: [],
  selected: null,
  detail: null,
  journal: [],
  /** null: follow the live actor; a number: the replayed journal entry. */
  replayIndex: null,
};

const $ = (id) => document.getElementById(id);
const elements = {
  chart: $('chart'),
  sourceRows: $('source-rows'),
  noSources: $('no-sources'),
  title: $('source-title'),
  currentState: $('current-state'),
  connection: $('connection'),
  replay: $('replay'),
  slider: $('replay-slider'),
  position: $('replay-position'),
  replayInfo: $('replay-info'),
  summary: $('context-summary'),
  queued: $('queued'),
  pendingTools: $('pending-tools'),
  history: $('history'),
  rawContext: $('raw-context'),
  logRows: $('log-rows'),
  logCount: $('log-count'),
};

async function getJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

function element(tag, properties = {}, children = []) {
  const node = Object.assign(document.createElement(tag), properties);
  for (const child of children) node.append(child);
  return node;
}

const shortId = (id) => (id.length > 12 ? `${id.slice(0, 6)}…${id.slice(-4)}` : id);
const nameOf = (row) => row.displayName || shortId(row.sourceId);

/** Events as the machine's author wrote them: `generate.onDone`, not XState's internal name. */
function eventText(entry) {
  const event = entry.event;
  const done = /^xstate\.(done|error)\.actor\.(?:\d+\.)?(.+)$/.exec(event);
  if (done) {
    const name = done[2].split('.').pop();
    return `${name}.${done[1] === 'done' ? 'onDone' : 'onError'}`;
  }
  if (event === 'always' && entry.trigger) return 'always';
  return event;
}

// ---- chart ----

async function loadChart() {
  const response = await fetch('/inspect/api/chart.svg');
  elements.chart.innerHTML = await response.text();
}

function highlight(activeIds, transition, stateText) {
  const active = new Set(activeIds || []);
  for (const node of elements.chart.querySelectorAll('.kc-state')) {
    node.classList.toggle('kc-active', active.has(node.dataset.stateId));
  }
  for (const edge of elements.chart.querySelectorAll('.kc-transition')) {
    const taken =
      !!transition &&
      edge.dataset.source === transition.source &&
      transition.targets.includes(edge.dataset.target) &&
      (edge.dataset.events || '').split(' ').includes(transition.eventType);
    edge.classList.toggle('kc-taken', taken);
  }
  elements.currentState.textContent = stateText || '';
  elements.currentState.dataset.state = stateText || '';
}

function showCurrent() {
  if (state.replayIndex !== null) {
    const entry = state.journal[state.replayIndex];
    if (entry) highlight(entry.activeStateIds, entry.transition, entry.to);
    return;
  }
  const view = state.detail?.view;
  if (!view) {
    highlight([], null, '');
    return;
  }
  const last = state.journal.at(-1);
  const transition = last && last.to === view.state ? last.transition : null;
  highlight(view.activeStateIds, transition, view.state);
}

// ---- sources ----

function renderSources() {
  elements.noSources.hidden = state.sources.length > 0;
  elements.sourceRows.replaceChildren(
    ...state.sources.map((row) => {
      const tr = element('tr', { className: row.sourceId === state.selected ? 'selected' : '' }, [
        element('td', {}, [
          element('span', { className: `kind kind-${row.kind}`, textContent: row.kind }),
          element('span', { className: 'name', textContent: nameOf(row), title: row.sourceId }),
          element('span', {
            className: row.live ? 'badge live' : 'badge',
            textContent: row.live ? 'live' : 'stored',
          }),
        ]),
        element('td', {
          className: 'state',
          textContent: [
            row.state,
            row.lifecycle,
            row.owner && `owner ${row.owner} until ${clock(row.leaseUntil)}`,
          ]
            .filter(Boolean)
            .join(' · '),
        }),
        element('td', { className: 'outcome', textContent: outcomeText(row.lastTurn) }),
        element('td', { className: 'activity', textContent: ago(row.lastActivity) }),
      ]);
      tr.dataset.sourceId = row.sourceId;
      tr.addEventListener('click', () => select(row.sourceId));
      return tr;
    }),
  );
}

/** How the last turn ended; when it got no answer, why (skip, limit, failure, quarantine). */
function outcomeText(outcome) {
  if (!outcome) return '—';
  if (outcome.answered === null) return outcome.stopReason;
  if (outcome.answered) return 'answered';
  return `no answer: ${outcome.noAnswer}${outcome.noticeSent ? ', notice sent' : ''}`;
}

async function loadSources() {
  const { sources } = await getJson('/inspect/api/sources');
  state.sources = sources;
  renderSources();
  if (!state.selected && sources.length > 0) await select(sources[0].sourceId);
}

// ---- one source ----

async function select(sourceId) {
  if (state.selected !== sourceId) {
    state.selected = sourceId;
    state.replayIndex = null;
    state.journal = [];
    state.detail = null;
    window.history.replaceState(
      null,
      '',
      `${window.location.pathname}${window.location.search}#source=${encodeURIComponent(sourceId)}`,
    );
  }
  renderSources();
  await refreshDetail();
}

async function refreshDetail() {
  const sourceId = state.selected;
  if (!sourceId) return;
  let detail;
  try {
    detail = await getJson(`/inspect/api/sources/${encodeURIComponent(sourceId)}`);
  } catch {
    return;
  }
  if (state.selected !== sourceId) return;
  state.detail = detail;
  mergeJournal(detail.journal, true);
  const row = detail.source;
  elements.title.textContent = `${nameOf(row)} (${row.kind}${row.live ? ', live' : ', stored'})`;
  renderContext();
  renderLog();
  showCurrent();
  showLifecycle(detail.lifecycle, row);
}

/**
 * The stream may deliver an entry before or after the fetch that also holds it. A fetched
 * journal is in the journal's own order; stream entries it does not hold yet come after it.
 */
function mergeJournal(entries, fetched = false) {
  const incoming = new Set(entries.map((entry) => entry.id));
  if (fetched) {
    state.journal = [...entries, ...state.journal.filter((entry) => !incoming.has(entry.id))];
    return;
  }
  const known = new Set(state.journal.map((entry) => entry.id));
  state.journal = [...state.journal, ...entries.filter((entry) => !known.has(entry.id))];
}

function renderContext() {
  const view = state.detail?.view;
  if (!view) return;
  const facts = [
    ['state', view.state],
    ['status', view.status],
    // A stored head has no settings (they come from the running configuration): no limit to show.
    [
      'iteration',
      view.iteration.maxModelCalls === null
        ? `${view.iteration.modelCalls} model calls`
        : `${view.iteration.modelCalls} / ${view.iteration.maxModelCalls} model calls`,
    ],
    ['queued', `${view.queued.reduce((sum, group) => sum + group.length, 0)} message(s)`],
    ['pending tools', String(view.pendingTools.length)],
    [
      'turn',
      view.turn
        ? `${view.turn.id} (${view.turn.messages} message(s), ${view.turn.deliveries} deliveries)`
        : '—',
    ],
    [
      'last turn',
      view.lastTurn
        ? `${outcomeText(state.detail.source.lastTurn)} (${view.lastTurn.stopReason}, ${view.lastTurn.modelCalls} model call(s))`
        : '—',
    ],
    ['history', `${view.history.length} entries`],
  ];
  elements.summary.replaceChildren(
    ...facts.flatMap(([term, value]) => [
      element('dt', { textContent: term }),
      element('dd', { textContent: value }),
    ]),
  );
  elements.queued.replaceChildren(
    ...view.queued
      .flat()
      .map((message) =>
        element('li', { textContent: `${message.sender ? `${message.sender}: ` : ''}${message.text}` }),
      ),
  );
  elements.pendingTools.replaceChildren(
    ...view.pendingTools.map((tool) =>
      element('li', { textContent: `${tool.name}(${JSON.stringify(tool.args)})` }),
    ),
  );
  elements.history.replaceChildren(...view.history.map(historyItem));
  elements.rawContext.textContent = JSON.stringify(view.context, null, 2);
}

function historyItem(entry) {
  return element('li', { className: `role-${entry.role}`, textContent: historyText(entry) });
}

function renderLog() {
  elements.logCount.textContent = `(${state.journal.length})`;
  elements.logRows.replaceChildren(
    ...state.journal.map((entry, index) => {
      const row = element('tr', { className: `kind-${entry.kind}` }, [
        element('td', { textContent: String(index + 1) }),
        element('td', { textContent: clock(entry.time) }),
        element('td', {
          textContent: eventText(entry),
          title: entry.trigger ? `${entry.event} (during ${entry.trigger})` : entry.event,
        }),
        element('td', {
          textContent:
            entry.kind === 'transition' ? `${entry.from} → ${entry.to}` : `${entry.kind}: ${entry.to}`,
        }),
        element('td', { textContent: duration(entry.durationMs) }),
      ]);
      row.dataset.index = String(index);
      row.classList.toggle('replay-current', index === state.replayIndex);
      row.addEventListener('click', () => replayAt(index));
      return row;
    }),
  );
  renderReplay();
}

// ---- replay ----

function renderReplay() {
  const count = state.journal.length;
  elements.replay.hidden = count === 0;
  elements.slider.max = String(Math.max(0, count - 1));
  const live = state.replayIndex === null;
  elements.slider.value = String(live ? count - 1 : state.replayIndex);
  elements.position.textContent = live ? 'live' : `step ${state.replayIndex + 1} of ${count}`;
  elements.position.dataset.index = live ? 'live' : String(state.replayIndex);
  const entry = live ? null : state.journal[state.replayIndex];
  const summary = entry?.summary;
  elements.replayInfo.textContent = entry
    ? `${clock(entry.time)} ${eventText(entry)}${summary ? ` · history ${summary.history}, queued ${summary.queued}, model calls ${summary.modelCalls}, pending tools ${summary.pendingTools}` : ''}`
    : '';
}

function replayAt(index) {
  if (state.journal.length === 0) return;
  state.replayIndex = Math.min(Math.max(0, index), state.journal.length - 1);
  for (const row of elements.logRows.children) {
    row.classList.toggle('replay-current', Number(row.dataset.index) === state.replayIndex);
  }
  elements.logRows.children[state.replayIndex]?.scrollIntoView({ block: 'nearest' });
  renderReplay();
  showCurrent();
}

function goLive() {
  state.replayIndex = null;
  renderLog();
  showCurrent();
}

const current = () => (state.replayIndex === null ? state.journal.length - 1 : state.replayIndex);
$('replay-first').addEventListener('click', () => replayAt(0));
$('replay-back').addEventListener('click', () => replayAt(current() - 1));
$('replay-forward').addEventListener('click', () => replayAt(current() + 1));
$('replay-last').addEventListener('click', () => replayAt(state.journal.length - 1));
$('replay-live').addEventListener('click', goLive);
elements.slider.addEventListener('input', () => replayAt(Number(elements.slider.value)));
document.addEventListener('keydown', (event) => {
  if (event.target instanceof window.HTMLInputElement && event.target.type !== 'range') return;
  if (event.key === 'ArrowLeft') replayAt(current() - 1);
  if (event.key === 'ArrowRight') replayAt(current() + 1);
});

// ---- live updates ----

let detailTimer;
let sourcesTimer;

/** One reload of the list within half a second, however many entries ask: a busy bot never starves it. */
function reloadSourcesSoon() {
  if (sourcesTimer !== undefined) return;
  sourcesTimer = window.setTimeout(() => {
    sourcesTimer = undefined;
    void loadSources();
  }, 500);
}

/** Rows waiting for their refresh: one request per source within half a second. */
const rowTimers = new Map();

function refreshRowSoon(sourceId) {
  if (rowTimers.has(sourceId)) return;
  const refresh = async () => {
    rowTimers.delete(sourceId);
    let fresh;
    try {
      ({ source: fresh } = await getJson(`/inspect/api/sources/${encodeURIComponent(sourceId)}/row`));
    } catch {
      return;
    }
    const index = state.sources.findIndex((candidate) => candidate.sourceId === sourceId);
    if (index < 0) return;
    state.sources[index] = fresh;
    renderSources();
  };
  rowTimers.set(
    sourceId,
    window.setTimeout(() => void refresh(), 500),
  );
}

function later(timer, action, ms) {
  window.clearTimeout(timer);
  return window.setTimeout(action, ms);
}

function onEntry({ sourceId, entry }) {
  const row = state.sources.find((candidate) => candidate.sourceId === sourceId);
  if (row) {
    row.state = entry.to;
    row.lastActivity = entry.time;
    row.live = entry.kind !== 'stop';
    renderSources();
  }
  // A new source joins the list; a turn that starts or ends changes its row's owner and outcome.
  if (!row) reloadSourcesSoon();
  else if (entry.to === 'receive' || entry.to === 'idle') refreshRowSoon(sourceId);
  if (sourceId !== state.selected) return;
  mergeJournal([entry]);
  renderLog();
  if (state.replayIndex === null) {
    highlight(entry.activeStateIds, entry.transition, entry.to);
    if (state.detail)
      state.detail.view = { ...state.detail.view, state: entry.to, activeStateIds: entry.activeStateIds };
  }
  detailTimer = later(detailTimer, () => void refreshDetail(), 120);
}

function connect() {
  const stream = new EventSource('/inspect/api/stream');
  stream.addEventListener('open', () => {
    elements.connection.textContent = 'live';
    elements.connection.dataset.status = 'live';
  });
  stream.addEventListener('error', () => {
    elements.connection.textContent = 'reconnecting…';
    elements.connection.dataset.status = 'reconnecting';
  });
  stream.addEventListener('entry', (event) => onEntry(JSON.parse(event.data)));
}

async function start() {
  await Promise.all([loadChart(), loadLifecycleChart()]);
  connect();
  const wanted = /source=([^&]+)/.exec(window.location.hash)?.[1];
  if (wanted) await select(decodeURIComponent(wanted));
  await loadSources();
  window.setInterval(() => renderSources(), 10_000);
  // The lifecycle moves without conversation transitions (releasing, standing by): look again now and then.
  window.setInterval(() => void refreshDetail(), 2_000);
}

void start();
