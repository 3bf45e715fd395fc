import type { SourceKind } from '../../domain/index.js';

/** Which recent user message a hint matched: the current turn's own, or an earlier one. */
export type MatchedMessage = 'current' | 'earlier';

/**
 * Why a tool was offered at a step. Plain JSON, so it goes into logs as fields; it never
 * carries the user's words, only the tool's own keyword or pattern that matched.
 */
export type SelectionReason =
  | { readonly kind: 'required' }
  | { readonly kind: 'keyword'; readonly keyword: string; readonly message: MatchedMessage }
  | { readonly kind: 'intent'; readonly intent: string; readonly message: MatchedMessage }
  | { readonly kind: 'source-kind'; readonly sourceKind: SourceKind }
  /** The conversation called it in one of its last turns (0: this turn). */
  | { readonly kind: 'used-recently'; readonly turnsAgo: number }
  /** The model asked the tool finder for it during this turn. */
  | { readonly kind: 'requested' }
  /** Nothing may be withheld: no tool finder is registered to reach the rest. */
  | { readonly kind: 'no-tool-finder' };

/** One offered tool and every reason it was offered for. */
export interface OfferedTool {
  readonly name: string;
  readonly reasons: readonly SelectionReason[];
}

/**
 * A reason in words, for people reading logs or the inspector.
 * @example
 * describeReason({ kind: 'keyword', keyword: '天気', message: 'current' }); // 'keyword "天気" in the current message'
 */
export function describeReason(reason: SelectionReason): string {
  switch (reason.kind) {
    case 'required':
      return 'required';
    case 'keyword':
      return `keyword "${reason.keyword}" in ${messageText(reason.message)}`;
    case 'intent':
      return `intent ${reason.intent} in ${messageText(reason.message)}`;
    case 'source-kind':
      return `always offered in ${reason.sourceKind === 'user' ? '1:1' : reason.sourceKind} chats`;
    case 'used-recently':
      return reason.turnsAgo === 0
        ? 'used in this turn'
        : `used ${reason.turnsAgo} turn${reason.turnsAgo === 1 ? '' : 's'} ago`;
    case 'requested':
      return 'requested through the tool finder';
    case 'no-tool-finder':
      return 'offered because no tool finder is registered';
  }
}

function messageText(message: MatchedMessage): string {
  return message === 'current' ? 'the current message' : 'an earlier message';
}
