import type { FunctionCall, HistoryEntry, JsonObject, ObjectSchema } from '../domain/index.js';

/** A tool as the model sees it: name, description and JSON Schemas. */
export interface ToolDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters: ObjectSchema;
  readonly response?: ObjectSchema;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
}

/** Media bytes for the current turn only (history keeps a reference, never the bytes). */
export interface MediaPart {
  /** The user entry (event id) it belongs to. */
  readonly eventId: string;
  /** A photo or a voice message; a provider gives the model a note for a type it cannot take. */
  readonly kind: 'image' | 'audio';
  /** As the content API declared it (`image/jpeg`, `audio/x-m4a`…). */
  readonly mimeType: string;
  /** Base64. */
  readonly data: string;
}

export interface ModelRequest {
  /** The stable prefix (persona, required tools, rules): what a provider may cache. */
  readonly systemInstruction: string;
  readonly history: readonly HistoryEntry[];
  /** The declarations offered at this step (all of them when nothing is selected). */
  readonly tools: readonly ToolDeclaration[];
  /**
   * Every declaration, when `tools` is a selection. A provider cache that must hold the
   * tools holds these, and the step's choice then travels as `stepGuidance` only.
   */
  readonly allTools?: readonly ToolDeclaration[];
  /** The per-step part of the prompt (which optional tools fit now, with detail), after the prefix. */
  readonly stepGuidance?: string;
  readonly signal: AbortSignal;
  readonly media?: readonly MediaPart[];
  /** Epoch ms by which the call, retries included, must be over (the turn's deadline). */
  readonly deadline?: number;
}

export type ModelFunctionCall = Omit<FunctionCall, 'id'> & { readonly id?: string };

export interface ModelResponse {
  /** Plain text the model wrote. Never sent to the user: only the `reply` tool sends. */
  readonly text?: string;
  /** Calls without an id get a stable one from the machine. */
  readonly calls: readonly ModelFunctionCall[];
  /**
   * What the provider needs back that `text` and `calls` cannot rebuild (thought signatures and
   * the like), kept in history as the adapter shapes it: without repeating the text or the calls.
   */
  readonly providerParts?: readonly JsonObject[];
  readonly usage: TokenUsage;
}

/**
 * The port the conversation machine depends on. Adapters: Gemini, the offline model,
 * and `ScriptedModel` for tests.
 */
export interface ModelPort {
  readonly name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}

export const noUsage: TokenUsage = { promptTokens: 0, outputTokens: 0, cachedTokens: 0 };
