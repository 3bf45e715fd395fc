import {
  cutText,
  reminderLateBy,
  REPLY_TOOL_NAME,
  type HistoryEntry,
  type UserEntry,
} from '../../domain/index.js';

// The bracket kaiwa writes before each user message for Gemini: who spoke and when, and what
// happened besides the words (an event, a reminder that came late, the message a reply quotes).
// Only kaiwa writes inside it: names and quoted words lose what could close or fake it.

/**
 * `[Aiko 2026-11-22 10:00 UTC]`: in a group several people talk, and the model must know
 * who said what and when; `[Aiko 2026-11-22 10:00 UTC, event: postback]` for an event, so that
 * typing "[postback] …" never passes for pressing a button. Brackets, commas, colons and line
 * breaks are taken out of display names, which users choose, so a name cannot pose as another
 * speaker, an event or an instruction.
 */
export function speakerPrefix(entry: UserEntry, quotable: ReadonlyMap<string, string> = new Map()): string {
  const name = speakerName(entry);
  // Inside the bracket, where neither a user's text nor a display name can write it; a reminder
  // that came late says when it was due, so the model can say it is late.
  const due = reminderLateBy(entry) && entry.dueAt !== undefined ? minuteOf(entry.dueAt) : undefined;
  const event = entry.event ? `, event: ${entry.event}${due ? `, due ${due}` : ''}` : '';
  // A reply to an earlier message (LINE's quote) says which, when it is still in the window.
  const quote = entry.quotedMessageId
    ? `, replying to ${quotable.get(entry.quotedMessageId) ?? 'an earlier message'}`
    : '';
  const time = minuteOf(entry.timestamp);
  // A timestamp no date holds (stored before the webhook refused them) leaves the time out.
  return time ? `[${name} ${time}${event}${quote}]` : `[${name}${event}${quote}]`;
}

/** Who spoke, as the bracket may show it: no brackets, commas, colons or line breaks. */
function speakerName(entry: UserEntry): string {
  const name = cutText(
    (entry.sender?.displayName ?? entry.sender?.userId ?? 'someone').replace(/[[\],:\s]+/g, ' ').trim(),
    60,
  );
  return name || 'someone';
}

/**
 * What a quote can point at, by LINE message id: `Aiko's message "lunch at…"` for a user's
 * message, `your message "It is sunny…"` for the bot's reply. The words are cut short and lose
 * brackets, quotes and line breaks: inside the bracket they must not pose as anything else.
 */
export function quotableMessages(history: readonly HistoryEntry[]): Map<string, string> {
  const quotable = new Map<string, string>();
  // Most windows quote nothing: then nothing is read or cut.
  const quoted = new Set(
    history.flatMap((entry) =>
      entry.role === 'user' && entry.quotedMessageId ? [entry.quotedMessageId] : [],
    ),
  );
  if (quoted.size === 0) return quotable;
  const replies = new Map<string, string>();
  for (const entry of history) {
    if (entry.role === 'user') {
      if (entry.messageId && quoted.has(entry.messageId))
        quotable.set(entry.messageId, `${speakerName(entry)}'s message "${snippet(entry.text)}"`);
    } else if (entry.role === 'model') {
      for (const call of entry.calls) {
        if (call.name === REPLY_TOOL_NAME && typeof call.args.message === 'string')
          replies.set(call.id, call.args.message);
      }
    } else {
      for (const result of entry.results) {
        const text = replies.get(result.callId);
        if (text === undefined) continue;
        for (const id of result.lineMessageIds ?? [])
          if (quoted.has(id)) quotable.set(id, `your message "${snippet(text)}"`);
      }
    }
  }
  return quotable;
}

function snippet(text: string): string {
  const plain = text.replace(/[[\]"\s]+/g, ' ').trim();
  return plain.length > 40 ? `${[...plain].slice(0, 40).join('').trimEnd()}…` : plain;
}

/** `2026-11-22 10:00 UTC`, or undefined for a time no date holds. */
function minuteOf(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime())
    ? undefined
    : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
