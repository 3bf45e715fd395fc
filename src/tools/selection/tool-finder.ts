import type { HistoryEntry, JsonObject, ObjectSchema, SchemaValue } from '../../domain/index.js';
import { compareStrings, renderToolDetail, renderToolSummary } from '../tool-text.js';
import { defineTool } from '../define-tool.js';
import type { Tool, ToolResult } from '../tool.js';
import type { ToolRegistry } from '../tool-registry.js';
import { KeywordMatcher, normalize } from './keyword-match.js';

export const TOOL_FINDER_NAME = 'find_tools';

export interface ToolFinderOptions {
  /** Read at every call, so tools registered later are found too. */
  readonly registry: Pick<ToolRegistry, 'list' | 'get'>;
}

const NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

const FINDER_RESPONSE = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, summary: { type: 'string' } },
        required: ['name', 'summary'],
        additionalProperties: false,
      },
    },
    enabled: { type: 'string' },
    detail: { type: 'string' },
    note: { type: 'string' },
  },
  additionalProperties: false,
} as const satisfies ObjectSchema;

type FinderResult = ToolResult<SchemaValue<typeof FINDER_RESPONSE>>;

/**
 * `find_tools(query?, name?)`: the meta-tool that keeps a narrowed tool list from ever
 * cutting the model off (docs/design-notes.md, "Choosing tools per step"). Without `name` it lists the optional tools in
 * one line each (those matching `query` when it matches any); with `name` it returns that
 * tool's full detail and enables it for the next step.
 *
 * "Enabled" is not state of this tool: it is the `enabled` field of the result, which the
 * turn's history keeps, and selection reads it from there (see {@link toolsRequestedInTurn}),
 * so it survives a restore.
 * @example
 * registry.register(createToolFinderTool({ registry }));
 */
export function createToolFinderTool(options: ToolFinderOptions) {
  const { registry } = options;
  return defineTool({
    name: TOOL_FINDER_NAME,
    description:
      'List the optional tools in one line each, or get one in full and enable it for your next step.',
    category: 'discovery',
    optional: false,
    sideEffects: false,
    usageHint:
      'When the message needs a tool that "Tools for this step" does not offer: call it without arguments (or with a query) to see the others, then with `name` to enable the one you need; call that tool on your next step.',
    examples: [
      { description: 'What else is there?', args: {} },
      { description: 'Looking for a reminder tool', args: { query: 'reminder' } },
      { description: 'Enable a tool and read how to call it', args: { name: 'set_reminder' } },
    ],
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          description: 'Words for what you need, in any language; only matching tools are listed',
        },
        name: {
          type: 'string',
          pattern: NAME_PATTERN,
          description: 'A tool to enable for your next step; its full description comes back',
        },
      },
      additionalProperties: false,
    },
    response: FINDER_RESPONSE,
  }).implement((args) =>
    Promise.resolve(args.name !== undefined ? enable(registry, args.name) : list(registry, args.query)),
  );
}

function enable(registry: ToolFinderOptions['registry'], name: string): FinderResult {
  const tool = registry.get(name);
  if (!tool || tool.name === TOOL_FINDER_NAME) {
    return {
      forLLM: { error: `no tool named "${name}"; call ${TOOL_FINDER_NAME} without arguments to list them` },
      isError: true,
    };
  }
  return {
    forLLM: {
      enabled: tool.name,
      detail: renderToolDetail(tool),
      note: tool.optional
        ? `${tool.name} is offered from your next step on: call it then.`
        : `${tool.name} is required and always offered.`,
    },
  };
}

function list(registry: ToolFinderOptions['registry'], query: string | undefined): FinderResult {
  const optional = registry.list().filter((tool) => tool.optional);
  const matching = query === undefined ? optional : optional.filter((tool) => matches(tool, query));
  const shown = matching.length > 0 ? matching : optional;
  const note =
    query !== undefined && matching.length === 0
      ? `nothing matched "${query}"; these are all the optional tools. `
      : '';
  return {
    forLLM: {
      tools: shown
        .sort((a, b) => compareStrings(a.name, b.name))
        .map((tool) => ({ name: tool.name, summary: renderToolSummary(tool) })),
      note: `${note}Call ${TOOL_FINDER_NAME} with "name" to enable one for your next step.`,
    },
  };
}

// Words that would match nearly every description.
const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'get',
  'what',
  'how',
  'tool',
  'tools',
  'this',
  'that',
  'with',
]);

/** A query word found in the tool's keywords, or the tool's name or description found in the query. */
function matches(tool: Tool, query: string): boolean {
  const text = normalize(query);
  const words = text.split(/[\s,.!?、。？！]+/).filter((word) => word.length > 2 && !STOP_WORDS.has(word));
  const own = normalize(`${tool.name.replace(/_/g, ' ')} ${tool.description} ${tool.category}`);
  if (words.some((word) => own.includes(word))) return true;
  return new KeywordMatcher(tool.keywords ?? []).firstIn(query) !== undefined;
}

/**
 * The tools the model enabled through the tool finder during this turn, read from the
 * turn's tool results: nothing else holds them, so a restored turn still has them.
 */
export function toolsRequestedInTurn(history: readonly HistoryEntry[], turnId: string): Set<string> {
  const requested = new Set<string>();
  for (const entry of history) {
    if (entry.role !== 'tool' || entry.turnId !== turnId) continue;
    for (const result of entry.results) {
      if (result.name === TOOL_FINDER_NAME && isEnabled(result.response))
        requested.add(result.response.enabled);
    }
  }
  return requested;
}

function isEnabled(response: JsonObject): response is JsonObject & { enabled: string } {
  return typeof response.enabled === 'string' && response.error === undefined;
}
