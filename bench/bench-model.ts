import type { UserEntry } from '../src/domain/index.js';
import { noUsage, type ModelPort, type ModelRequest, type ModelResponse } from '../src/model/index.js';

/**
 * The benchmark's model: zero latency, always answers the last user message through `reply`.
 * Both contenders use it, so the model costs the same on each side.
 */
export class EchoReplyModel implements ModelPort {
  readonly name = 'bench-echo';

  generate(request: ModelRequest): Promise<ModelResponse> {
    const last = request.history.findLast((entry): entry is UserEntry => entry.role === 'user');
    return Promise.resolve({
      calls: [{ name: 'reply', args: { message: `re: ${last?.text ?? ''}` } }],
      usage: noUsage,
    });
  }
}
