import { TOOL_FINDER_NAME } from '../tools/selection/index.js';
import {
  compareStrings,
  groupTools,
  renderToolDetail,
  renderToolSummary,
  type Tool,
} from '../tools/index.js';
import { renderGroup, renderSelectionGuidance, SELECTION_STEPS } from './tool-section.js';

/** The heading of the per-step part; the stable part refers to it by this name. */
export const STEP_GUIDANCE_HEADING = '# Tools for this step';

const FINDER_STEP = `When the message needs a tool that is not offered for this step, call \`${TOOL_FINDER_NAME}\` (a query helps), enable the tool with its \`name\`, and call it on your next step. Check \`${TOOL_FINDER_NAME}\` before telling anyone you cannot do something.`;

/**
 * The tool section of the stable prompt prefix when tools are selected per step
 * (docs/design-notes.md, "Choosing tools per step"): required tools in full, the optional ones only by category, and how the
 * per-step part and the tool finder work. It depends on the registry alone, never on the
 * conversation, so a context cache holding it keeps hitting while the offered set changes.
 * @example
 * renderStableToolSection(registry.list()); // "# Tools\n…## Conversation tools (required)…"
 */
export function renderStableToolSection(tools: readonly Tool[]): string {
  const required = tools.filter((tool) => !tool.optional);
  const optional = tools.filter((tool) => tool.optional);
  return [
    '# Tools',
    'Call tools through function calls, never by writing them out as text. ' +
      'Required tools are always there for you. Optional tools add information when a message needs it; ' +
      `not all of them are offered at every step: a section "${STEP_GUIDANCE_HEADING}" names the ones that fit the conversation now.`,
    ...groupTools(required).map(renderGroup),
    renderOptionalOverview(optional),
    renderSelectionGuidance([...SELECTION_STEPS, FINDER_STEP]),
  ].join('\n\n');
}

/** Categories and counts only: cheap, and enough for the model to know what to look for. */
function renderOptionalOverview(optional: readonly Tool[]): string {
  if (optional.length === 0) return '## Optional tools\nNone are registered.';
  const counts = new Map<string, number>();
  for (const tool of optional) counts.set(tool.category, (counts.get(tool.category) ?? 0) + 1);
  const categories = [...counts.entries()]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([category, count]) => `${category.replace(/[_-]+/g, ' ')} (${count})`);
  return `## Optional tools\n${optional.length} optional tools, for: ${categories.join(', ')}. \`${TOOL_FINDER_NAME}\` lists and enables those not offered for this step.`;
}

/**
 * The per-step part: the offered optional tools, in full when they are complex or commonly
 * misused (`complex`), in one line otherwise. Sent after the stable prefix, or at the end of
 * the turn's contents when the prefix is served from a context cache.
 * @example
 * renderStepGuidance([weatherTool, currentTimeTool]); // "# Tools for this step\n…### get_weather…\n- `get_current_time(time_zone?)`: …"
 */
export function renderStepGuidance(offeredOptional: readonly Tool[]): string {
  if (offeredOptional.length === 0) {
    return `${STEP_GUIDANCE_HEADING}\nNo optional tool fits the conversation now; if the message needs one, call \`${TOOL_FINDER_NAME}\`.`;
  }
  const sorted = [...offeredOptional].sort((a, b) => compareStrings(a.name, b.name));
  const detailed = sorted.filter((tool) => tool.complex);
  const summarised = sorted.filter((tool) => !tool.complex);
  return [
    STEP_GUIDANCE_HEADING,
    `These optional tools fit the conversation now; for any other, call \`${TOOL_FINDER_NAME}\`.`,
    ...detailed.map(renderToolDetail),
    ...(summarised.length > 0 ? [summarised.map((tool) => `- ${renderToolSummary(tool)}`).join('\n')] : []),
  ].join('\n\n');
}
