import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';
import { sayAndWait, inbound, startConversation } from '../support/conversation-harness.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  replyAnswer,
} from '../support/fake-gemini-server.js';

// A lone UTF-16 surrogate — half an emoji, as `text.slice(0, n)` leaves it — is a valid JS
// string and JSON escapes it (`"\ud83d"`), but UTF-8 cannot encode it, and strict parsers refuse
// it. Stored in history, it would go with every later request of the chat: one cut string, and
// the chat got only apologies. kaiwa makes such text well-formed (U+FFFD) where it comes in.

const HALF_AN_EMOJI = '😀'.slice(0, 1);

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

const gemini = () => new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false });

/** A tool whose text for the model is cut inside an emoji. */
const quoteTool = defineTool({
  name: 'get_quote',
  description: 'A quote of the day.',
  category: 'information',
  optional: true,
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  response: { type: 'object', properties: { quote: { type: 'string' } }, required: ['quote'] },
}).implement(() => Promise.resolve({ forLLM: { quote: `Smile ${HALF_AN_EMOJI}` } }));

describe('text that is not well-formed Unicode', () => {
  it('a reply the model cut inside an emoji goes out well-formed, and the chat goes on', async () => {
    server.enqueue(replyAnswer(`Sure ${HALF_AN_EMOJI}`), replyAnswer('And again.'));
    const { actor, delivery } = startConversation({ model: gemini() });

    await sayAndWait(actor, inbound('hello'));
    await sayAndWait(actor, inbound('once more'));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Sure \uFFFD', 'And again.']);
  });

  it("a tool's result cut inside an emoji reaches the model well-formed", async () => {
    server.enqueue(candidateAnswer([functionCallPart('get_quote', {})]), replyAnswer('Here is your quote.'));
    const { actor, delivery } = startConversation({ model: gemini(), tools: [quoteTool] });

    await sayAndWait(actor, inbound('a quote please'));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Here is your quote.']);
    expect(JSON.stringify(server.generateBodies[1])).toContain('Smile \uFFFD');
  });

  it('a message that reached history before kaiwa made text well-formed goes to the model with U+FFFD', async () => {
    server.enqueue(replyAnswer('Got it.'));
    const { actor, delivery } = startConversation({ model: gemini() });

    await sayAndWait(actor, inbound(`stored long ago ${HALF_AN_EMOJI}`));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Got it.']);
    expect(JSON.stringify(server.generateBodies[0])).toContain('stored long ago \uFFFD');
  });
});
