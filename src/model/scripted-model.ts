import type { HistoryEntry, JsonObject } from '../domain/index.js';
import {
  noUsage,
  type MediaPart,
  type ModelPort,
  type ModelRequest,
  type ModelResponse,
} from './model-port.js';

/** One scripted step: a fixed response, an error to throw, or a function of the request. */
export type ScriptStep =
  ModelResponse | Error | ((request: ModelRequest) => ModelResponse | Promise<ModelResponse>);

/** What the model was given on one call (history copied, as it was then). */
export interface RecordedModelCall {
  readonly systemInstruction: string;
  readonly history: readonly HistoryEntry[];
  readonly toolNames: readonly string[];
  readonly stepGuidance?: string;
  readonly media: readonly MediaPart[];
  readonly deadline?: number;
}

/**
 * A test double of the model port: replays scripted steps in order and records every call.
 * @example
 * const model = new ScriptedModel([callTools(['get_weather', { location: 'Tokyo' }]), callReply('Sunny')]);
 */
export class ScriptedModel implements ModelPort {
  readonly name = 'scripted';
  readonly calls: RecordedModelCall[] = [];
  private readonly steps: ScriptStep[];

  constructor(
    steps: readonly ScriptStep[],
    private readonly options: { repeatLast?: boolean } = {},
  ) {
    this.steps = [...steps];
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls.push({
      systemInstruction: request.systemInstruction,
      history: structuredClone(request.history),
      toolNames: request.tools.map((tool) => tool.name),
      ...(request.stepGuidance !== undefined && { stepGuidance: request.stepGuidance }),
      media: request.media ?? [],
      ...(request.deadline !== undefined && { deadline: request.deadline }),
    });
    const step = this.options.repeatLast && this.steps.length === 1 ? this.steps[0] : this.steps.shift();
    if (step === undefined) throw new Error(`ScriptedModel: no step left for call ${this.calls.length}`);
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(request) : step;
  }
}

/** A response calling the given tools, in order. */
export function callTools(...calls: [name: string, args: JsonObject][]): ModelResponse {
  return { calls: calls.map(([name, args]) => ({ name, args })), usage: noUsage };
}

export function callReply(message: string): ModelResponse {
  return callTools(['reply', { message }]);
}

/** A response with text only and no calls: the turn ends and nothing is sent. */
export function textOnly(text: string): ModelResponse {
  return { text, calls: [], usage: noUsage };
}
