// How the inspector writes one history entry: who or what, and what the model was told of it —
// an event rather than typed words, a reminder that came late, a reply quoting a message.

export function historyText(entry) {
  if (entry.role === 'user') {
    const who = entry.sender?.displayName || entry.sender?.userId || 'user';
    const notes = [
      entry.event && `event: ${entry.event}`,
      entry.event === 'reminder' && entry.dueAt && `due ${new Date(entry.dueAt).toISOString()}`,
      entry.quotedMessageId && `replying to message ${entry.quotedMessageId}`,
    ].filter(Boolean);
    return `${who}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}: ${entry.text}`;
  }
  if (entry.role === 'model') {
    const calls = (entry.calls || []).map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(', ');
    return `model: ${[entry.text, calls].filter(Boolean).join(' → ')}`;
  }
  if (entry.role === 'tool') {
    const results = (entry.results || []).map((result) => {
      const sent = result.lineMessageIds?.length
        ? ` [LINE messages ${result.lineMessageIds.join(', ')}]`
        : '';
      return `${result.name} → ${JSON.stringify(result.response)}${sent}`;
    });
    return `tools: ${results.join(', ')}`;
  }
  return JSON.stringify(entry);
}
