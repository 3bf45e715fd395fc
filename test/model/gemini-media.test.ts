import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { Attachment, HistoryEntry, UserEntry } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import {
  answerCheckpointsAtOnce,
  CONVERSATION_SYSTEM_ID,
  provideConversationServices,
  type MediaPort,
} from '../../src/machines/index.js';
import {
  GeminiModel,
  OfflineModel,
  type GeminiModelOptions,
  type MediaPart,
  type ModelRequest,
} from '../../src/model/index.js';
import { ToolRegistry, replyTool, skipTool } from '../../src/tools/index.js';
import { sayAndWait, inbound, RecordingDelivery, userSource } from '../support/conversation-harness.js';
import { FakeGeminiServer, replyAnswer, type WirePart } from '../support/fake-gemini-server.js';

// Images and voice messages for the model (docs/model.md, "Media"): only types Gemini takes,
// within a byte cap per request, the oldest left out first; a note tells the model what it
// does not get. Bytes never enter history.

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

function gemini(options: Partial<GeminiModelOptions> = {}): GeminiModel {
  return new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false, ...options });
}

const at = Date.UTC(2026, 10, 22, 10, 0);
function message(eventId: string, text: string, attachment?: Attachment): UserEntry {
  return {
    role: 'user',
    eventId,
    text,
    timestamp: at,
    sender: { userId: 'U1', displayName: 'Aiko' },
    ...(attachment && { attachment }),
  };
}
const image = (eventId: string) => message(eventId, '[image]', { kind: 'image', messageId: `m-${eventId}` });
const voice = (eventId: string) =>
  message(eventId, '[audio, 4 s]', { kind: 'audio', messageId: `m-${eventId}` });
const media = (eventId: string, kind: MediaPart['kind'], mimeType: string, data: string): MediaPart => ({
  eventId,
  kind,
  mimeType,
  data,
});

function request(history: HistoryEntry[], parts: MediaPart[]): ModelRequest {
  return {
    systemInstruction: 'You are a test bot.',
    history,
    tools: [],
    media: parts,
    signal: new AbortController().signal,
  };
}

const userParts = () => server.generateBodies[0]?.contents?.[0]?.parts ?? [];
const inline = (parts: WirePart[]) => parts.flatMap((part) => (part.inlineData ? [part.inlineData] : []));
const notes = (parts: WirePart[]) => parts.flatMap((part) => (part.text ? [part.text] : []));

describe('images for Gemini', () => {
  it('sends JPEG, PNG, WebP and HEIC inline, naming image/jpg as image/jpeg', async () => {
    server.enqueue(replyAnswer('four pictures'));
    const history = ['a', 'b', 'c', 'd'].map(image);

    await gemini().generate(
      request(history, [
        media('a', 'image', 'image/jpg', '/9j/'),
        media('b', 'image', 'image/png', 'iVBO'),
        media('c', 'image', 'image/webp', 'UklG'),
        media('d', 'image', 'image/heic', 'AAAA'),
      ]),
    );

    expect(server.rejections).toEqual([]);
    expect(inline(userParts()).map((data) => data.mimeType)).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'image/heic',
    ]);
  });

  it('tells the model about an image of a type Gemini does not take, instead of sending it', async () => {
    server.enqueue(replyAnswer('I cannot see GIFs'));

    await gemini().generate(request([image('a')], [media('a', 'image', 'image/gif', 'R0lGODlh')]));

    expect(server.rejections).toEqual([]);
    expect(inline(userParts())).toEqual([]);
    expect(notes(userParts())).toEqual([
      '[Aiko 2026-11-22 10:00 UTC] [image] (not shown to you: image/gif is not a type you can see)',
    ]);
  });

  it('leaves out the oldest media beyond the cap, with a note, and keeps the newest', async () => {
    server.enqueue(replyAnswer('ok'));
    const history = ['a', 'b', 'c'].map(image);

    await gemini({ maxInlineBytes: 2_500 }).generate(
      request(history, [
        media('a', 'image', 'image/jpeg', 'A'.repeat(1_000)),
        media('b', 'image', 'image/jpeg', 'B'.repeat(1_000)),
        media('c', 'image', 'image/jpeg', 'C'.repeat(1_000)),
      ]),
    );

    expect(inline(userParts()).map((data) => data.data[0])).toEqual(['B', 'C']);
    expect(notes(userParts())[0]).toBe(
      "[Aiko 2026-11-22 10:00 UTC] [image] (not shown to you: the request's media limit was reached)",
    );
  });

  it('keeps a request with large photos under Gemini’s 20 MB by default', async () => {
    server.enqueue(replyAnswer('two big photos'));

    await gemini().generate(
      request(['a', 'b'].map(image), [
        media('a', 'image', 'image/jpeg', 'A'.repeat(8_000_000)),
        media('b', 'image', 'image/jpeg', 'B'.repeat(8_000_000)),
      ]),
    );

    expect(server.rejections).toEqual([]);
    expect(inline(userParts()).map((data) => data.data[0])).toEqual(['B']);
  });
});

describe('voice messages for Gemini', () => {
  it('sends a format Gemini takes as audio', async () => {
    server.enqueue(replyAnswer('I heard you'));

    await gemini().generate(request([voice('v')], [media('v', 'audio', 'audio/aac', 'AAAA')]));

    expect(server.rejections).toEqual([]);
    expect(inline(userParts())).toEqual([{ mimeType: 'audio/aac', data: 'AAAA' }]);
  });

  it('gives the model a note for LINE’s m4a on the Developer API, whose documented types leave it out', async () => {
    server.enqueue(replyAnswer('Please type it'));

    await gemini().generate(request([voice('v')], [media('v', 'audio', 'audio/x-m4a', 'AAAA')]));

    expect(server.rejections).toEqual([]);
    expect(inline(userParts())).toEqual([]);
    expect(notes(userParts())).toEqual([
      '[Aiko 2026-11-22 10:00 UTC] [audio, 4 s] (not heard by you: audio/x-m4a is not a type you can hear)',
    ]);
  });

  it('sends LINE’s m4a as audio/mp4 on Vertex AI, which takes it', async () => {
    server.enqueue(replyAnswer('I heard you'));

    await gemini({ vertex: {} }).generate(
      request([voice('v')], [media('v', 'audio', 'audio/x-m4a', 'AAAA')]),
    );

    expect(server.rejections).toEqual([]);
    expect(inline(userParts())).toEqual([{ mimeType: 'audio/mp4', data: 'AAAA' }]);
  });

  it('flows from the media port to the model and stays out of history', async () => {
    server.enqueue(replyAnswer('Got your voice message.'));
    const loads: Attachment[] = [];
    const mediaPort: MediaPort = {
      load: (attachment) => {
        loads.push(attachment);
        return Promise.resolve({ mimeType: 'audio/aac', data: 'QUFDQUFDQUFD' });
      },
    };
    const tools = new ToolRegistry({ defaultTimeoutMs: 200 });
    for (const tool of [replyTool, skipTool]) tools.register(tool);
    const delivery = new RecordingDelivery();
    const actor = answerCheckpointsAtOnce(
      createActor(
        provideConversationServices({
          model: gemini(),
          tools,
          delivery,
          media: mediaPort,
          systemInstruction: () => 'You are a test bot.',
          clock: { now: () => 0 },
          logger: silentLogger,
        }),
        { systemId: CONVERSATION_SYSTEM_ID, input: { source: userSource } },
      ),
    ).start();

    const snapshot = await sayAndWait(
      actor,
      inbound('[audio, 3 s]', {
        messageId: 'm-voice',
        attachment: { kind: 'audio', messageId: 'm-voice' },
      }),
    );

    expect(loads).toEqual([{ kind: 'audio', messageId: 'm-voice' }]);
    expect(delivery.texts).toEqual(['Got your voice message.']);
    expect(inline(userParts())).toEqual([{ mimeType: 'audio/aac', data: 'QUFDQUFDQUFD' }]);
    expect(JSON.stringify(snapshot.context.history)).not.toContain('QUFDQUFDQUFD');
  });
});

describe('voice messages for the offline model', () => {
  it('says it cannot listen to them', async () => {
    const response = await new OfflineModel().generate({
      ...request([voice('v')], [media('v', 'audio', 'audio/aac', 'AAAA')]),
      tools: [{ name: 'reply', description: 'reply', parameters: { type: 'object' } }],
    });

    expect(response.calls).toEqual([
      {
        name: 'reply',
        args: {
          message: expect.stringContaining('cannot listen to voice messages') as string,
        },
      },
    ]);
  });
});
