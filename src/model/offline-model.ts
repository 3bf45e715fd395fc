import type { HistoryEntry, UserEntry } from '../domain/index.js';
import { noUsage, type ModelPort, type ModelRequest, type ModelResponse } from './model-port.js';

/**
 * The stand-in when no Gemini credentials are set: deterministic, answers through the
 * `reply` tool like a real model must, and says what it is.
 */
export class OfflineModel implements ModelPort {
  readonly name = 'offline';

  generate(request: ModelRequest): Promise<ModelResponse> {
    const currentTurn = entriesSinceLastUser(request.history);
    const alreadyCalledTools = currentTurn.some((entry) => entry.role === 'model' && entry.calls.length > 0);
    const userText = currentTurn
      .filter((entry): entry is UserEntry => entry.role === 'user')
      .map((entry) => entry.text)
      .join('\n');
    const canReply = request.tools.some((tool) => tool.name === 'reply');
    if (alreadyCalledTools || !canReply || userText === '') {
      return Promise.resolve({ text: 'Nothing more to do.', calls: [], usage: noUsage });
    }
    const message = `(offline model) You said: “${userText}”. I am kaiwa's offline model: set GEMINI_API_KEY for real answers.`;
    return Promise.resolve({
      calls: [{ name: 'reply', args: { message: truncate(message, 5000) } }],
      usage: noUsage,
    });
  }
}

/** The user messages of the current turn and everything after them. */
function entriesSinceLastUser(history: readonly HistoryEntry[]): HistoryEntry[] {
  const lastUser = history.findLastIndex((entry) => entry.role === 'user');
  if (lastUser < 0) return [];
  let first = lastUser;
  while (first > 0 && history[first - 1]?.role === 'user') first--;
  return history.slice(first);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}
