import type { HistoryEntry, JsonObject } from '../../../src/domain/index.js';
import { createReminderTools, type ReminderScheduler } from '../../../src/reminders/index.js';
import {
  createCurrentTimeTool,
  createWeatherTool,
  defineTool,
  replyTool,
  skipTool,
  type Tool,
} from '../../../src/tools/index.js';
import { createToolFinderTool, TOOL_FINDER_NAME } from '../../../src/tools/selection/index.js';
import { ToolRegistry } from '../../../src/tools/index.js';

/** A scheduler that keeps nothing: selection tests never run the reminder tools. */
export const idleScheduler: ReminderScheduler = {
  schedule: () => Promise.resolve(),
  cancel: () => Promise.resolve(false),
  list: () => Promise.resolve([]),
};

/** A tool for group chats only, offered there at every step. */
export const pollTool = defineTool({
  name: 'start_poll',
  description: 'Start a poll among the members of this group.',
  category: 'group',
  optional: true,
  sourceKinds: ['group', 'room'],
  offerAlwaysIn: ['group'],
  keywords: ['poll', 'vote', '投票'],
  parameters: {
    type: 'object',
    properties: { question: { type: 'string', minLength: 1 } },
    required: ['question'],
    additionalProperties: false,
  },
  response: { type: 'object' },
}).implement(() => Promise.resolve({ forLLM: {} }));

/**
 * The built-in tools and the tool finder, registered as kaiwa does, plus `extra` (by default
 * the group-only poll); an extra tool replaces the built-in of the same name.
 */
export function builtInRegistry(extra: readonly Tool[] = [pollTool]): ToolRegistry {
  const registry = new ToolRegistry({ defaultTimeoutMs: 1000 });
  const builtIn = [
    replyTool,
    skipTool,
    createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }),
    createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' }),
    ...createReminderTools({ scheduler: idleScheduler }),
  ];
  const replaced = new Set(extra.map((tool) => tool.name));
  for (const tool of [...builtIn.filter((tool) => !replaced.has(tool.name)), ...extra]) {
    registry.register(tool);
  }
  return registry.register(createToolFinderTool({ registry }));
}

let sequence = 0;
/** A user message; its event id doubles as the id of the turn it starts. */
export function said(text: string, eventId = `e${++sequence}`): HistoryEntry {
  return { role: 'user', eventId, text, timestamp: sequence };
}

/** A model step of `turnId` calling `name`, and the tool's answer. */
export function called(
  turnId: string,
  name: string,
  response: JsonObject = {},
  args: JsonObject = {},
): HistoryEntry[] {
  const callId = `${turnId}-${name}-${++sequence}`;
  return [
    { role: 'model', turnId, calls: [{ id: callId, name, args }] },
    { role: 'tool', turnId, results: [{ callId, name, response }] },
  ];
}

/** The model asked the tool finder for `name` in `turnId`, and it was enabled. */
export function requested(turnId: string, name: string): HistoryEntry[] {
  return called(turnId, TOOL_FINDER_NAME, { enabled: name, detail: '…', note: '…' }, { name });
}
