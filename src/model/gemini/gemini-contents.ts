import type { Content, Part } from '@google/genai';
import type {
  FunctionCall,
  FunctionResult,
  HistoryEntry,
  ModelEntry,
  UserEntry,
} from '../../domain/index.js';
import type { MediaPart } from '../model-port.js';
import { expandProviderParts } from './gemini-provider-parts.js';
import { quotableMessages, speakerPrefix } from './speaker-bracket.js';

/** How far the contents had to deviate from the history to follow Gemini's turn rules. */
export interface DroppedEntries {
  /** Model and tool entries before the first user entry (an unsend, a bound, a restore). */
  readonly beforeFirstUser: number;
  /** Function results that answer no call of the model turn before them. */
  readonly unansweredResults: number;
  /** Calls whose result never made it into history: answered with an error response instead. */
  readonly interruptedCalls: number;
}

/** The history as Gemini contents, with what had to be left out on the way (for the logs). */
export interface GeminiContents {
  readonly contents: Content[];
  readonly dropped: DroppedEntries;
}

/** Sent for a call whose result never made it into history (a crash or a reset mid-step). */
const INTERRUPTED_RESPONSE = { error: 'the call was interrupted and has no result' } as const;

/**
 * Maps provider-neutral history to Gemini `Content[]`:
 * - a user entry → a `user` turn whose text is prefixed with who spoke and when
 *   (`[Aiko 2026-11-22 10:00 UTC] hello`), plus the current turn's media as inline data (see
 *   `prepareMedia`) or the note saying why the model does not get them;
 * - a model entry → a `model` turn: its provider parts as Gemini sent them when it has them
 *   (thought signatures; see `gemini-provider-parts`), else its text and function calls;
 * - tool entries → one `user` turn of function responses in the order of the calls they answer.
 *
 * The contents follow Gemini's turn rules whatever history bounds, unsends and restores left
 * (docs/model.md, "Turn rules"): they start with a user turn (entries before the first user
 * entry are left out), consecutive turns of one role are merged into one `Content` — so a
 * function call turn always follows a user or function response turn — results that answer
 * no call of the turn before them are left out, and calls without a result get an error
 * response. What was left out is counted in `dropped`.
 */
export function toGeminiContents(
  history: readonly HistoryEntry[],
  media: readonly MediaPart[] = [],
  mediaNotes: ReadonlyMap<string, string> = new Map(),
): GeminiContents {
  const contents: Content[] = [];
  const dropped = { beforeFirstUser: 0, unansweredResults: 0, interruptedCalls: 0 };
  let step: OpenStep | undefined;
  const firstUser = history.findIndex((entry) => entry.role === 'user');
  dropped.beforeFirstUser = firstUser < 0 ? history.length : firstUser;
  const quotable = quotableMessages(history);

  const append = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
  };
  const closeStep = () => {
    if (!step) return;
    const open = step;
    step = undefined;
    const parts = open.entry.calls.map((call) => {
      const result = open.results.get(call.id);
      if (!result) dropped.interruptedCalls++;
      return functionResponsePart(call, result?.response ?? INTERRUPTED_RESPONSE, open.providerIds);
    });
    append('user', parts);
  };

  for (const entry of history.slice(dropped.beforeFirstUser)) {
    if (entry.role === 'tool') {
      for (const result of entry.results) {
        if (step?.entry.calls.some((call) => call.id === result.callId))
          step.results.set(result.callId, result);
        else dropped.unansweredResults++;
      }
      continue;
    }
    closeStep();
    if (entry.role === 'user') {
      append('user', userParts(entry, media, mediaNotes.get(entry.eventId), quotable));
    } else {
      append('model', modelParts(entry));
      if (entry.calls.length > 0) step = { entry, providerIds: providerCallIds(entry), results: new Map() };
    }
  }
  closeStep();
  return { contents, dropped };
}

interface OpenStep {
  readonly entry: ModelEntry;
  readonly providerIds: ReadonlySet<string>;
  readonly results: Map<string, FunctionResult>;
}

/**
 * The call ids Gemini itself issued for this entry: those in its verbatim parts. Ids the
 * machine made up (for calls that came without one) are never sent back to Gemini.
 */
export function providerCallIds(entry: ModelEntry): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const part of entry.providerParts ?? []) {
    const call = part.functionCall;
    if (typeof call === 'object' && call !== null && !Array.isArray(call) && typeof call.id === 'string') {
      ids.add(call.id);
    }
  }
  return ids;
}

function functionResponsePart(
  call: FunctionCall,
  response: FunctionResult['response'],
  providerIds: ReadonlySet<string>,
): Part {
  return {
    functionResponse: { ...(providerIds.has(call.id) && { id: call.id }), name: call.name, response },
  };
}

function modelParts(entry: ModelEntry): Part[] {
  // As received, so thought signatures and any part we do not model go back exactly.
  if (entry.providerParts) return expandProviderParts(entry);
  return [
    ...(entry.text ? [{ text: entry.text }] : []),
    ...entry.calls.map((call) => ({ functionCall: { name: call.name, args: call.args } })),
  ];
}

function userParts(
  entry: UserEntry,
  media: readonly MediaPart[],
  note: string | undefined,
  quotable: ReadonlyMap<string, string>,
): Part[] {
  const ownMedia = media.filter((part) => part.eventId === entry.eventId);
  // Media bytes go with the current turn only; older turns keep a reference in text, and media
  // of this turn the model does not get (a type it cannot take, over the limit) a note.
  const reference = note
    ? ` ${note}`
    : entry.attachment && ownMedia.length === 0
      ? ` ${attachmentReference(entry.attachment)}`
      : '';
  return [
    { text: `${speakerPrefix(entry, quotable)} ${entry.text}${reference}` },
    ...ownMedia.map((part) => ({ inlineData: { mimeType: part.mimeType, data: part.data } })),
  ];
}

function attachmentReference(attachment: NonNullable<UserEntry['attachment']>): string {
  const type = attachment.mimeType ? `, ${attachment.mimeType}` : '';
  return `(${attachment.kind} sent earlier: LINE message ${attachment.messageId}${type}; not shown again)`;
}
