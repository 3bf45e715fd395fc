import type { JsonObject, JsonValue } from '../domain/index.js';
import type { ToolDeclaration } from '../model/index.js';
import type { Tool, ToolRegistry } from '../tools/index.js';

/**
 * The system prompt's tool section (seed 004, ADR-002), generated from the registry so it
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

const SELECTION_GUIDANCE = `# Choosing tools
1. Work out what the latest message asks for, and whether it needs an answer at all.
2. Call an optional tool only when the message needs what it gives ("When to use" says when); never guess facts a tool can give you.
3. Tools that do not depend on each other can be called together; they run in parallel.
4. After each tool result, decide whether another tool is needed, then finish the turn as "How to answer" says.
5. A result of the form {"error": "..."} means the tool failed: do not repeat the same call; try different arguments once, or tell the user briefly.`;

interface ToolGroup {
  readonly category: string;
  readonly optional: boolean;
  readonly tools: readonly Tool[];
}

/** Required groups first, then by category name; tools inside a group by name. */
function groupTools(tools: readonly Tool[]): ToolGroup[] {
  const byKey = new Map<string, { category: string; optional: boolean; tools: Tool[] }>();
  for (const tool of tools) {
    const key = `${tool.optional ? 1 : 0}\u0000${tool.category}`;
    const group = byKey.get(key) ?? { category: tool.category, optional: tool.optional, tools: [] };
    group.tools.push(tool);
    byKey.set(key, group);
  }
  return [...byKey.values()]
    .sort((a, b) => Number(a.optional) - Number(b.optional) || compareStrings(a.category, b.category))
    .map((group) => ({ ...group, tools: group.tools.sort((a, b) => compareStrings(a.name, b.name)) }));
}

function renderGroup(group: ToolGroup): string {
  const heading = `## ${titleOf(group.category)} tools (${group.optional ? 'optional' : 'required'})`;
  return [heading, ...group.tools.map(renderTool)].join('\n\n');
}

function renderTool(tool: Tool): string {
  const lines = [`### ${tool.name}`, tool.description, '', renderParameters(tool.parameters)];
  if (tool.usageHint) lines.push('', `**When to use:** ${tool.usageHint}`);
  const examples = tool.examples ?? [];
  if (examples.length > 0) {
    lines.push('', '**Examples:**');
    for (const example of examples) {
      lines.push(`- ${example.description}: \`${tool.name}(${JSON.stringify(example.args)})\``);
    }
  }
  return lines.join('\n');
}

function renderParameters(schema: JsonObject): string {
  const properties = asObject(schema.properties);
  const names = Object.keys(properties ?? {});
  if (!properties || names.length === 0) return '**Parameters:** none';
  const required = new Set(asStrings(schema.required));
  // Required parameters first, each set in the schema's own order.
  const ordered = [
    ...names.filter((name) => required.has(name)),
    ...names.filter((name) => !required.has(name)),
  ];
  const lines = ordered.map((name) =>
    renderParameter(name, asObject(properties[name]) ?? {}, required.has(name)),
  );
  return ['**Parameters:**', ...lines].join('\n');
}

function renderParameter(name: string, schema: JsonObject, required: boolean): string {
  const facts = [typeof schema.description === 'string' ? sentence(schema.description) : ''];
  const allowed = schema.enum;
  if (Array.isArray(allowed))
    facts.push(`One of: ${allowed.map((value) => JSON.stringify(value)).join(', ')}.`);
  facts.push(...constraintsOf(schema));
  if (schema.default !== undefined) facts.push(`Default: ${JSON.stringify(schema.default)}.`);
  const text = facts.filter((fact) => fact !== '').join(' ');
  return `- \`${name}\` (${typeOf(schema)}, ${required ? 'required' : 'optional'})${text ? `: ${text}` : ''}`;
}

/** The limits a model most often breaks, in words, so it can build a valid call first time. */
function constraintsOf(schema: JsonObject): string[] {
  const constraints: string[] = [];
  const { minLength, maxLength, minimum, maximum, pattern, format } = schema;
  if (typeof minLength === 'number' && typeof maxLength === 'number') {
    constraints.push(`${minLength} to ${maxLength} characters.`);
  } else if (typeof maxLength === 'number') {
    constraints.push(`At most ${maxLength} characters.`);
  } else if (typeof minLength === 'number' && minLength > 1) {
    constraints.push(`At least ${minLength} characters.`);
  }
  if (typeof minimum === 'number' && typeof maximum === 'number') {
    constraints.push(`From ${minimum} to ${maximum}.`);
  } else if (typeof minimum === 'number') {
    constraints.push(`At least ${minimum}.`);
  } else if (typeof maximum === 'number') {
    constraints.push(`At most ${maximum}.`);
  }
  if (typeof pattern === 'string') constraints.push(`Must match \`${pattern}\`.`);
  if (typeof format === 'string') constraints.push(`Format: ${format}.`);
  return constraints;
}

function typeOf(schema: JsonObject): string {
  const { type } = schema;
  if (type === 'array') {
    const items = asObject(schema.items);
    return items ? `array of ${typeOf(items)}` : 'array';
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.filter((name) => typeof name === 'string').join(' or ');
  return 'any';
}

function titleOf(category: string): string {
  const words = category.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?。]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

function asStrings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

// Locale-independent, so the generated text is the same on every machine.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
