// The source lifecycle panel: where the selected source stands in this process (owned here,
// loading, draining its inbox, releasing, standing by), with what the store records of it.
import { clock } from './time-format.js';

const $ = (id) => document.getElementById(id);
const chart = $('lifecycle-chart');
const stateText = $('lifecycle-state');
const facts = $('lifecycle-facts');
const fit = $('lifecycle-fit');

/** Where the chart was last scrolled to: it follows a new state, not every poll. */
let centredOn = '';

export async function loadLifecycleChart() {
  const response = await fetch('/inspect/api/lifecycle.svg');
  if (!response.ok) return;
  chart.innerHTML = await response.text();
  const width = chart.querySelector('svg')?.getAttribute('width');
  if (width) chart.style.setProperty('--natural-width', width);
}

/** Shows the selected source's lifecycle (`null`: not in memory) and its row's store facts. */
export function showLifecycle(lifecycle, row) {
  const active = new Set(lifecycle?.activeStateIds || []);
  for (const node of chart.querySelectorAll('.kc-state')) {
    node.classList.toggle('kc-active', active.has(node.dataset.stateId));
  }
  chart.classList.toggle('nothing-active', active.size === 0);
  const text = lifecycle?.state || 'not in memory';
  stateText.textContent = text;
  stateText.dataset.state = text;
  centre(text);
  const known = [];
  if (lifecycle) known.push(lifecycle.owned ? `owned here (fence ${lifecycle.fence})` : 'not owned here');
  if (row?.owner) known.push(`owner ${row.owner}, lease until ${clock(row.leaseUntil)}`);
  if (row?.inboxSize !== undefined) known.push(`${row.inboxSize} waiting in the inbox`);
  facts.textContent = known.join(' · ');
}

/** Scrolls the zoomed chart so that its innermost active state is in the middle. */
function centre(text) {
  if (!chart.classList.contains('zoomed') || text === centredOn) return;
  const area = (node) => node.getBoundingClientRect().width * node.getBoundingClientRect().height;
  const innermost = [...chart.querySelectorAll('.kc-state.kc-active')].sort((a, b) => area(a) - area(b))[0];
  if (!innermost) return;
  centredOn = text;
  const box = innermost.getBoundingClientRect();
  const view = chart.getBoundingClientRect();
  chart.scrollLeft += box.left - view.left - (view.width - box.width) / 2;
  chart.scrollTop += box.top - view.top - (view.height - box.height) / 2;
}

fit.addEventListener('click', () => {
  const fitted = chart.classList.toggle('zoomed') === false;
  fit.setAttribute('aria-pressed', String(fitted));
  fit.textContent = fitted ? 'zoom in' : 'whole chart';
  centredOn = '';
  centre(stateText.textContent);
});
