import {
  FakeGeminiServer,
  functionCallPart,
  candidateAnswer,
  type FakeAnswer,
  type GenerateContentBody,
} from './fake-gemini-server.js';

/** The message marks a crash test writes: `s3m7` is the 8th message of source 3. */
export const MESSAGE_MARK = /\bs(\d+)m(\d+)\b/g;

/** The marks in a text, in order. */
export function marksIn(text: string): string[] {
  return [...text.matchAll(MESSAGE_MARK)].map((match) => match[0]);
}

/**
 * A Gemini (the fake server, so kaiwa's real `@google/genai` client talks to it) that answers
 * every request after `latency()` ms by calling `reply` with `re: ` and the marks of the user
 * messages it has not answered yet — those in user turns and in none of its earlier `reply`
 * calls. A turn run again after a crash gets the same answer; an answer that is not `re: …`
 * (an apology, a notice) can only come from kaiwa.
 */
export async function startEchoGemini(latency: () => number): Promise<FakeGeminiServer> {
  const gemini = await FakeGeminiServer.start();
  gemini.fallback = (body) => withDelay(answerFor(body), latency());
  return gemini;
}

function answerFor(body: GenerateContentBody): FakeAnswer {
  const asked: string[] = [];
  const answered = new Set<string>();
  for (const content of body.contents ?? []) {
    for (const part of content.parts ?? []) {
      if (content.role === 'user' && part.text) asked.push(...marksIn(part.text));
      const message = part.functionCall?.name === 'reply' ? part.functionCall.args?.message : undefined;
      if (content.role === 'model' && typeof message === 'string') {
        for (const mark of marksIn(message)) answered.add(mark);
      }
    }
  }
  const open = [...new Set(asked)].filter((mark) => !answered.has(mark));
  if (open.length === 0) return candidateAnswer([functionCallPart('skip', { reason: 'nothing new' })]);
  return candidateAnswer([functionCallPart('reply', { message: `re: ${open.join(' ')}` })]);
}

function withDelay(answer: FakeAnswer, delayMs: number): FakeAnswer {
  return 'body' in answer ? { ...answer, delayMs } : answer;
}
