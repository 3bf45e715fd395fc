import { readFile } from 'node:fs/promises';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { LineSchemas, type LineSchemaFile, type Validation } from '../../src/line/openapi/line-schemas.js';
import {
  groupSource,
  roomSource,
  textMessageEvent,
  userSource,
  webhookBody,
  webhookEventFixtures,
} from '../support/webhook-fixtures.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface OpenApiDocument {
  components: { schemas: Record<string, unknown> };
}

async function readDocument(file: LineSchemaFile): Promise<OpenApiDocument> {
  const text = await readFile(new URL(`../../src/line/openapi/${file}.yml`, import.meta.url), 'utf8');
  return parse(text) as OpenApiDocument;
}

/** What a project gets by handing LINE's file to ajv as is: `discriminator` is an unknown keyword. */
function plainAjvValidator(document: OpenApiDocument, schemaName: string, options = {}): ValidateFunction {
  const ajv = addFormats(new Ajv({ strict: false, ...options }));
  ajv.addSchema({ $id: 'unconverted', components: document.components });
  return ajv.compile({ $ref: `unconverted#/components/schemas/${schemaName}` });
}

/** A body around an event that cannot be a `webhook.Event`. */
function bodyWithEvent(event: unknown) {
  return { ...webhookBody([]), events: [event] };
}

function errorsOf(validation: Validation): string[] {
  return validation.ok ? [] : validation.errors;
}

const replyToken = 'nHuyWiB7yP5Zw52FIkcQobQuGDXCTA';
const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
const text = (content: string) => ({ type: 'text', text: content });
const reply = (...messages: unknown[]) => ({ replyToken, messages });
const texts = (count: number) => Array.from({ length: count }, () => text('hi'));

let schemas: LineSchemas;
let messagingApi: OpenApiDocument;
let webhook: OpenApiDocument;

beforeAll(async () => {
  [schemas, messagingApi, webhook] = await Promise.all([
    LineSchemas.load(),
    readDocument('messaging-api'),
    readDocument('webhook'),
  ]);
});

describe('discriminator mapping', () => {
  const invalidMessages = [
    {
      name: 'text message without text',
      message: { type: 'text' },
      error: "/messages/0 must have required property 'text'",
    },
    {
      name: 'unknown message type',
      message: { type: 'bogus' },
      error: '/messages/0/type must be equal to one of the allowed values: "text", "textV2", "sticker"',
    },
  ];

  it.each(invalidMessages)('rejects a $name in a ReplyMessageRequest', ({ message, error }) => {
    const validation = schemas.validateRequest('POST', '/v2/bot/message/reply', reply(message));

    expect(validation.ok).toBe(false);
    expect(errorsOf(validation)[0]).toContain(error);
  });

  it.each(invalidMessages)('plain ajv on the unconverted file accepts a $name', ({ message }) => {
    const validate = plainAjvValidator(messagingApi, 'ReplyMessageRequest');

    expect(validate(reply(message))).toBe(true);
    // The same validator does enforce what is outside the discriminator, so the acceptance above is not a no-op.
    expect(validate({ messages: [message] })).toBe(false);
  });

  it("ajv's own discriminator support refuses LINE's mapping", () => {
    expect(() => plainAjvValidator(messagingApi, 'ReplyMessageRequest', { discriminator: true })).toThrow(
      /mapping is not supported/,
    );
  });

  it('plain ajv on the unconverted webhook file accepts an unknown source and a text message without text', () => {
    const validate = plainAjvValidator(webhook, 'CallbackRequest');
    const event = { ...textMessageEvent, source: { type: 'alien' }, message: { type: 'text', id: '1' } };

    expect(validate(bodyWithEvent(event))).toBe(true);
    expect(schemas.validateWebhook(bodyWithEvent(event)).ok).toBe(false);
  });

  it('pins a child schema validated on its own to its discriminator value', () => {
    const validation = schemas.validateSchema('messaging-api', 'TextMessage', {
      type: 'sticker',
      text: 'hi',
    });

    expect(errorsOf(validation)).toEqual(['/type must be equal to one of the allowed values: "text"']);
  });

  it.each(['messaging-api', 'webhook'] as const)(
    'compiles every component schema of %s.yml',
    async (file) => {
      const { components } = await readDocument(file);

      for (const schemaName of Object.keys(components.schemas)) {
        expect(() => schemas.validateSchema(file, schemaName, {}), schemaName).not.toThrow();
      }
    },
  );
});

describe('Messaging API request bodies', () => {
  const sticker = { type: 'sticker', packageId: '446', stickerId: '1988' };
  const flexBubble = {
    type: 'flex',
    altText: 'Weather',
    contents: {
      type: 'bubble',
      body: { type: 'box', layout: 'vertical', contents: [{ type: 'text', text: 'Sunny', weight: 'bold' }] },
    },
  };
  const valid: [string, string, string, unknown][] = [
    [
      'a reply with text and quoteToken',
      'POST',
      '/v2/bot/message/reply',
      reply({ ...text('hi'), quoteToken: 'q3Plxr4AgKd' }),
    ],
    ['a push', 'POST', '/v2/bot/message/push', { to: userId, messages: [text('hello')] }],
    ['a sticker reply', 'POST', '/v2/bot/message/reply', reply(sticker)],
    ['five messages, the most LINE takes', 'POST', '/v2/bot/message/reply', reply(...texts(5))],
    ['a flex bubble', 'POST', '/v2/bot/message/reply', reply(flexBubble)],
    [
      'a loading animation of 5 seconds',
      'POST',
      '/v2/bot/chat/loading/start',
      { chatId: userId, loadingSeconds: 5 },
    ],
    [
      'a loading animation of 60 seconds',
      'POST',
      '/v2/bot/chat/loading/start',
      { chatId: userId, loadingSeconds: 60 },
    ],
    ['a loading animation without seconds', 'POST', '/v2/bot/chat/loading/start', { chatId: userId }],
    ['a templated path without a body', 'GET', `/v2/bot/profile/${userId}`, undefined],
    ['a query string after the path', 'GET', '/v2/bot/followers/ids?limit=10', undefined],
  ];

  it.each(valid)('accepts %s', (_name, method, path, body) => {
    expect(schemas.validateRequest(method, path, body)).toEqual({ ok: true });
  });

  const invalid: [string, string, string, unknown, string][] = [
    [
      'more than 5 messages',
      'POST',
      '/v2/bot/message/reply',
      reply(...texts(6)),
      '/messages must NOT have more than 5 items',
    ],
    ['no messages', 'POST', '/v2/bot/message/reply', reply(), '/messages must NOT have fewer than 1 items'],
    [
      'a reply without replyToken',
      'POST',
      '/v2/bot/message/reply',
      { messages: [text('hi')] },
      "/ must have required property 'replyToken'",
    ],
    [
      'a push without to',
      'POST',
      '/v2/bot/message/push',
      { messages: [text('hi')] },
      "/ must have required property 'to'",
    ],
    [
      'a sticker without stickerId',
      'POST',
      '/v2/bot/message/reply',
      reply({ type: 'sticker', packageId: '446' }),
      "/messages/0 must have required property 'stickerId'",
    ],
    [
      'a flex component of unknown type',
      'POST',
      '/v2/bot/message/reply',
      reply({
        ...flexBubble,
        contents: {
          ...flexBubble.contents,
          body: { type: 'box', layout: 'vertical', contents: [{ type: 'marquee' }] },
        },
      }),
      '/messages/0/contents/body/contents/0/type must be equal to one of the allowed values',
    ],
    [
      'a quick reply action of unknown type',
      'POST',
      '/v2/bot/message/reply',
      reply({ ...text('hi'), quickReply: { items: [{ type: 'action', action: { type: 'teleport' } }] } }),
      '/messages/0/quickReply/items/0/action/type must be equal to one of the allowed values',
    ],
    [
      'a loading animation of 4 seconds',
      'POST',
      '/v2/bot/chat/loading/start',
      { chatId: userId, loadingSeconds: 4 },
      '/loadingSeconds must be >= 5',
    ],
    [
      'a loading animation of 61 seconds',
      'POST',
      '/v2/bot/chat/loading/start',
      { chatId: userId, loadingSeconds: 61 },
      '/loadingSeconds must be <= 60',
    ],
    [
      'a loading animation of 5.5 seconds',
      'POST',
      '/v2/bot/chat/loading/start',
      { chatId: userId, loadingSeconds: 5.5 },
      '/loadingSeconds must be integer',
    ],
    [
      'a loading animation without chatId',
      'POST',
      '/v2/bot/chat/loading/start',
      { loadingSeconds: 5 },
      "/ must have required property 'chatId'",
    ],
    [
      'a missing required body',
      'POST',
      '/v2/bot/message/reply',
      undefined,
      'POST /v2/bot/message/reply requires a request body',
    ],
    [
      'a body where none is defined',
      'GET',
      `/v2/bot/profile/${userId}`,
      {},
      'GET /v2/bot/profile/{userId} takes no request body',
    ],
    [
      'an unknown operation',
      'POST',
      '/v2/bot/message/teleport',
      {},
      'no Messaging API operation POST /v2/bot/message/teleport',
    ],
  ];

  it.each(invalid)('rejects %s', (_name, method, path, body, error) => {
    const validation = schemas.validateRequest(method, path, body);

    expect(validation.ok).toBe(false);
    expect(errorsOf(validation).join('\n')).toContain(error);
  });

  it("accepts 7 loading seconds: LINE's file states the multiple of 5 only in prose, not as multipleOf", () => {
    const validation = schemas.validateRequest('POST', '/v2/bot/chat/loading/start', {
      chatId: userId,
      loadingSeconds: 7,
    });

    expect(validation).toEqual({ ok: true });
  });

  it('accepts a 5001-character text: the 5000 limit is not in the file, so the emulator must enforce it', () => {
    const validation = schemas.validateRequest(
      'POST',
      '/v2/bot/message/reply',
      reply(text('a'.repeat(5001))),
    );

    expect(validation).toEqual({ ok: true });
  });
});

describe('webhook bodies', () => {
  it.each(Object.entries(webhookEventFixtures))('accepts the %s fixture', (_name, event) => {
    expect(schemas.validateWebhook(webhookBody([event]))).toEqual({ ok: true });
  });

  it.each([
    ['user', userSource],
    ['group', groupSource],
    ['room', roomSource],
  ])('accepts a message from a %s source', (_name, source) => {
    expect(schemas.validateWebhook(webhookBody([{ ...textMessageEvent, source }]))).toEqual({ ok: true });
  });

  it('accepts every fixture in one body, and the empty body LINE sends to verify the URL', () => {
    expect(schemas.validateWebhook(webhookBody(Object.values(webhookEventFixtures)))).toEqual({ ok: true });
    expect(schemas.validateWebhook(webhookBody([]))).toEqual({ ok: true });
  });

  const { message: _message, ...withoutMessage } = textMessageEvent;
  const { text: _text, ...textContentWithoutText } = textMessageEvent.message;
  const { webhookEventId: _webhookEventId, ...withoutWebhookEventId } = textMessageEvent;
  const invalid: [string, unknown, string][] = [
    [
      'an unknown source type',
      { ...textMessageEvent, source: { type: 'alien' } },
      '/events/0/source/type must be equal to one of the allowed values: "user", "group", "room"',
    ],
    [
      'a group source without groupId',
      { ...textMessageEvent, source: { type: 'group', userId } },
      "/events/0/source must have required property 'groupId'",
    ],
    ['a message event without message', withoutMessage, "/events/0 must have required property 'message'"],
    [
      'a text message without text',
      { ...textMessageEvent, message: textContentWithoutText },
      "/events/0/message must have required property 'text'",
    ],
    [
      'an unknown event type',
      { ...textMessageEvent, type: 'teleport' },
      '/events/0/type must be equal to one of the allowed values',
    ],
    [
      'an unknown mode',
      { ...textMessageEvent, mode: 'dormant' },
      '/events/0/mode must be equal to one of the allowed values: "active", "standby"',
    ],
    [
      'an event without webhookEventId',
      withoutWebhookEventId,
      "/events/0 must have required property 'webhookEventId'",
    ],
  ];

  it.each(invalid)('rejects %s', (_name, event, error) => {
    const validation = schemas.validateWebhook(bodyWithEvent(event));

    expect(validation.ok).toBe(false);
    expect(errorsOf(validation).join('\n')).toContain(error);
  });

  it('rejects a destination that is not a bot user ID', () => {
    const validation = schemas.validateWebhook(webhookBody([textMessageEvent], 'xxxxxxxxxx'));

    expect(errorsOf(validation).join('\n')).toContain('/destination must match pattern');
  });
});
