import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { workerRuntimeProvider } from '../../src/aws/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools } from '../../src/model/index.js';
import { startKaiwa } from '../../src/server/kaiwa-runtime.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';

// The bot of `src/bot` — a persona and tools of its own — is what `npm start` (and `npm run chat`,
// which starts the same runtime) and the Lambda worker run. Here it is replaced by a dice bot:
// each runtime, composed with no tools and no persona given, must offer its tool, run it, and
// open its system prompt with its persona.
const rolls = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/bot/bot.js', async () => {
  const { defineTool } = await import('../../src/tools/index.js');
  return {
    bot: {
      persona: 'You are Dicey, a bot that rolls dice.',
      tools: [
        defineTool({
          name: 'roll_dice',
          description: 'Rolls six-sided dice.',
          category: 'fun',
          optional: false,
          parameters: {
            type: 'object',
            properties: { count: { type: 'integer', minimum: 1, maximum: 10 } },
            required: ['count'],
            additionalProperties: false,
          },
          response: {
            type: 'object',
            properties: { rolls: { type: 'array', items: { type: 'integer' } } },
            required: ['rolls'],
            additionalProperties: false,
          },
        }).implement((args) => {
          rolls.count += 1;
          return Promise.resolve({ forLLM: { rolls: Array.from({ length: args.count }, () => 4) } });
        }),
      ],
    },
  };
});

/** The model calls the bot's tool, then answers with what it rolled. */
const diceModel = () =>
  new ScriptedModel([
    callTools(['roll_dice', { count: 2 }]),
    (request) => {
      const last = request.history.at(-1);
      const result = last?.role === 'tool' ? last.results[0] : undefined;
      return callReply(`You rolled ${JSON.stringify(result?.response)}`);
    },
  ]);

const userId = 'U' + 'b'.repeat(32);

/** A user asks the local runtime for dice, by webhook, and the turn runs to its end. */
async function askForDice(running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>>) {
  await running.post(
    JSON.stringify({
      destination: running.line.emulator.botUserId,
      events: [textEvent(running.line, { type: 'user', userId }, 'roll two dice')],
    }),
  );
  await running.kaiwa.host.whenSettled();
}

describe('the bot of src/bot', () => {
  it('is what npm start runs: its persona opens the system prompt, its tool is offered and runs', async () => {
    const model = diceModel();
    const running = await startKaiwaWithFakeLine({ model });
    try {
      await askForDice(running);

      expect(model.calls[0]?.systemInstruction.startsWith('You are Dicey, a bot that rolls dice.')).toBe(
        true,
      );
      expect(model.calls[0]?.toolNames).toContain('roll_dice');
      // The built-in tools stay beside the bot's own.
      expect(model.calls[0]?.toolNames).toContain('reply');
      const replies = running.line.requestsTo('/v2/bot/message/reply');
      expect(replies.map((request) => JSON.stringify(request.body))).toEqual([
        expect.stringContaining('You rolled {\\"rolls\\":[4,4]}'),
      ]);
    } finally {
      await running.close();
    }
  });

  it('gives way to KAIWA_PERSONA_FILE: a persona tried without a change to the code', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'kaiwa-persona-')), 'persona.txt');
    await writeFile(file, 'You are Momo, a cheerful cat.');
    const model = diceModel();
    const running = await startKaiwaWithFakeLine({ model, env: { KAIWA_PERSONA_FILE: file } });
    try {
      await askForDice(running);

      expect(model.calls[0]?.systemInstruction.startsWith('You are Momo, a cheerful cat.')).toBe(true);
      expect(model.calls[0]?.systemInstruction).not.toContain('Dicey');
      expect(model.calls[0]?.toolNames).toContain('roll_dice');
    } finally {
      await running.close();
    }
  });

  it.each(['reply', 'skip', 'find_tools'])(
    'may not replace %s: the conversation machine relies on it, so the start stops naming it',
    async (name) => {
      const { defineTool } = await import('../../src/tools/index.js');
      const impostor = defineTool({
        name,
        description: 'Says something.',
        category: 'conversation',
        optional: false,
        parameters: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        response: { type: 'object', properties: {}, additionalProperties: false },
      }).implement(() => Promise.resolve({ forLLM: {} }));

      // Before anything is opened: nothing to close.
      await expect(
        startKaiwa(loadConfig({ STORE: 'memory', PORT: '0' }), { tools: [impostor], logger: silentLogger }),
      ).rejects.toThrow(`tool "${name}": is kaiwa's own`);
    },
  );

  const required = dynamoDbLocalRequired();
  describe.skipIf(!required)('on Lambda', () => {
    let dynamodb: DynamoDbLocal;
    beforeAll(async () => {
      dynamodb = await startDynamoDbLocal();
    });
    afterAll(async () => {
      await dynamodb?.stop();
    });

    it('is what the worker runs: a drained turn has its persona and runs its tool', async () => {
      const line = await startFakeLine();
      const model = diceModel();
      try {
        const runtime = await workerRuntimeProvider(
          {
            LINE_CHANNEL_SECRET: 'bot-test-secret',
            LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
            LINE_API_BASE_URL: line.url,
            LINE_DATA_API_BASE_URL: line.url,
            STORE: 'dynamodb',
            DYNAMODB_TABLE: await dynamodb.createTable(),
            DYNAMODB_ENDPOINT: dynamodb.endpoint,
            AWS_REGION: 'us-east-1',
            KAIWA_REMINDER_SCHEDULE_GROUP: 'reminders',
            KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
            KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:reminder',
          },
          { model, logger: silentLogger },
        )();
        const before = rolls.count;
        await runtime.store.accept({
          eventId: 'bot-test-event-1',
          source: { kind: 'user', id: userId },
          sender: { userId },
          text: 'roll two dice',
          timestamp: Date.now(),
        });

        // A drain starts a turn only when its deadline (120 s) and a margin still fit.
        const outcome = await runtime.drain(userId, Date.now() + 300_000, 'bot-test-invocation');

        expect(outcome.busy).toBe(false);
        expect(model.calls[0]?.systemInstruction.startsWith('You are Dicey, a bot that rolls dice.')).toBe(
          true,
        );
        expect(model.calls[0]?.toolNames).toContain('roll_dice');
        expect(rolls.count).toBe(before + 1);
        expect(
          line.requestsTo('/v2/bot/message/push').map((request) => JSON.stringify(request.body)),
        ).toEqual([expect.stringContaining('You rolled {\\"rolls\\":[4,4]}')]);
      } finally {
        await line.close();
      }
    });
  });
});
