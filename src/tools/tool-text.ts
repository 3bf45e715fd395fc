import type { ObjectSchema } from '../domain/index.js';
import type { Tool } from './tool.js';

/**
 * One tool in full (docs/design-notes.md): description, parameters read from its JSON Schema,
 * when to use it and example calls. Used for required tools, complex offered tools and
 * whatever the model asks the tool finder about.
 * @example
 * renderToolDetail(weatherTool); // "### get_weather\nGet the weather …\n\n**Parameters:**\n- `location` …"
 */
export function renderToolDetail(tool: Tool): string {
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

/**
 * One tool on one line: its call shape and description, enough to call a simple tool
 * right (the schema still validates every call).
 * @example
 * renderToolSummary(currentTimeTool); // "`get_current_time(time_zone?)`: Get the current date, …"
 */
export function renderToolSummary(tool: Tool): string {
  return `\`${toolSignature(tool)}\`: ${tool.description.replace(/\s+/g, ' ').trim()}`;
}

/** `get_weather(location, date?, detail?)`: required parameters first, optional ones marked. */
export function toolSignature(tool: Tool): string {
  const properties = asObject(tool.parameters.properties) ?? {};
  const required = new Set(asStrings(tool.parameters.required));
  const names = orderedParameters(Object.keys(properties), required);
  return `${tool.name}(${names.map((name) => (required.has(name) ? name : `${name}?`)).join(', ')})`;
}

/** Tools of one category and kind, as the prompt groups them. */
export interface ToolGroup {
  readonly category: string;
  readonly optional: boolean;
  readonly tools: readonly Tool[];
}

/** Required groups first, then by category name; tools inside a group by name. */
export function groupTools(tools: readonly Tool[]): ToolGroup[] {
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

/** "reminders" → "Reminders", "tool_finder" → "Tool finder". */
export function titleOf(category: string): string {
  const words = category.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Locale-independent, so the generated text is the same on every machine. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function renderParameters(schema: ObjectSchema): string {
  const properties = asObject(schema.properties);
  const names = Object.keys(properties ?? {});
  if (!properties || names.length === 0) return '**Parameters:** none';
  const required = new Set(asStrings(schema.required));
  const lines = orderedParameters(names, required).map((name) =>
    renderParameter(name, asObject(properties[name]) ?? {}, required.has(name)),
  );
  return ['**Parameters:**', ...lines].join('\n');
}

/** Required parameters first, each set in the schema's own order. */
function orderedParameters(names: readonly string[], required: ReadonlySet<string>): string[] {
  return [...names.filter((name) => required.has(name)), ...names.filter((name) => !required.has(name))];
}

function renderParameter(name: string, schema: SchemaNode, required: boolean): string {
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
function constraintsOf(schema: SchemaNode): string[] {
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

function typeOf(schema: SchemaNode): string {
  const { type } = schema;
  if (type === 'array') {
    const items = asObject(schema.items);
    return items ? `array of ${typeOf(items)}` : 'array';
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.filter((name) => typeof name === 'string').join(' or ');
  return 'any';
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?。]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** One level of a JSON Schema, read keyword by keyword. */
type SchemaNode = { readonly [keyword: string]: unknown };

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): SchemaNode | undefined {
  return isSchemaNode(value) ? value : undefined;
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
