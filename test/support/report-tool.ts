import type { JsonObject } from '../../src/domain/index.js';
import { callReply, callTools, ScriptedModel, type ModelRequest } from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';

/**
 * `render_report`: answers `{ started: true }` at once and leaves `background()` as its work. A
 * test in JavaScript's shoes may leave anything there; the types stop that in TypeScript.
 */
export function reportTool(background: () => unknown) {
  return defineTool({
    name: 'render_report',
    description: 'Renders a report.',
    category: 'test',
    optional: false,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    response: {
      type: 'object',
      properties: { started: { type: 'boolean' } },
      required: ['started'],
      additionalProperties: false,
    },
  }).implement(() =>
    Promise.resolve({ forLLM: { started: true }, background: background() as PromiseLike<JsonObject> }),
  );
}

/** Calls `render_report`, replies "Working on it.", and answers the finished work with "Ready: …". */
export function reportModel(): ScriptedModel {
  return new ScriptedModel(
    [
      (request: ModelRequest) => {
        const last = request.history.at(-1);
        if (last?.role === 'user' && last.event === 'toolFinished') return callReply(`Ready: ${last.text}`);
        if (last?.role === 'tool') return callReply('Working on it.');
        return callTools(['render_report', {}]);
      },
    ],
    { repeatLast: true },
  );
}
