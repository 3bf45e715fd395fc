import type { ToolDeclaration } from '../model/index.js';
import {
  groupTools,
  renderToolDetail,
  titleOf,
  type Tool,
  type ToolGroup,
  type ToolRegistry,
} from '../tools/index.js';

/**
 * The system prompt's tool section (docs/design-notes.md), generated from the registry so it
 * never drifts from the tools: grouped by category, required tools before optional ones,
 * parameters read from each JSON Schema, usage hints, examples and selection guidance.
 *
 * The text is cached until a tool is registered: the registry hands out the same
 * declarations array until then, so that array's identity is the cache key.
 * @example
 * const section = new ToolSection(registry);
 * section.text(); // "# Tools\n\n## Conversation tools (required)\n…"
 */
export class ToolSection {
  private cached: { readonly declarations: readonly ToolDeclaration[]; readonly text: string } | undefined;

  constructor(private readonly registry: ToolRegistry) {}

  text(): string {
    const declarations = this.registry.declarations();
    if (this.cached?.declarations !== declarations) {
      this.cached = { declarations, text: renderToolSection(this.registry.list()) };
    }
    return this.cached.text;
  }
}

/** Renders the section for these tools; the order of `tools` does not matter. */
export function renderToolSection(tools: readonly Tool[]): string {
  if (tools.length === 0) return '# Tools\nNo tools are available.';
  const groups = groupTools(tools);
  return [
    '# Tools',
    'Call tools through function calls, never by writing them out as text. ' +
      'Required tools are always there for you; optional tools add information when a message needs it.',
    ...groups.map(renderGroup),
    SELECTION_GUIDANCE,
  ].join('\n\n');
}

/** The numbered steps of "# Choosing tools"; the tiered section adds one about the tool finder. */
export const SELECTION_STEPS = [
  'Work out what the latest message asks for, and whether it needs an answer at all.',
  'Call an optional tool only when the message needs what it gives ("When to use" says when); never guess facts a tool can give you.',
  'Tools that do not depend on each other can be called together; they run in parallel.',
  'After each tool result, decide whether another tool is needed, then finish the turn as "How to answer" says.',
  'A result of the form {"error": "..."} means the tool failed: do not repeat the same call; try different arguments once, or tell the user briefly.',
] as const;

/** "# Choosing tools" with these steps, numbered. */
export function renderSelectionGuidance(steps: readonly string[]): string {
  return ['# Choosing tools', ...steps.map((step, index) => `${index + 1}. ${step}`)].join('\n');
}

const SELECTION_GUIDANCE = renderSelectionGuidance(SELECTION_STEPS);

/** `## Information tools (optional)` and its tools in full. */
export function renderGroup(group: ToolGroup): string {
  const heading = `## ${titleOf(group.category)} tools (${group.optional ? 'optional' : 'required'})`;
  return [heading, ...group.tools.map(renderToolDetail)].join('\n\n');
}
