import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, vi } from 'vitest';
import { signBody } from '../../../src/line/emulator/webhook-sender.js';
import { startFakeLine } from '../../support/fake-line-server.js';
import { CHANNEL_SECRET } from '../../support/kaiwa-under-test.js';
import { textMessageEvent, userId, webhookBody } from '../../support/webhook-fixtures.js';

const crashChild = path.join(import.meta.dirname, 'background-crash-child.ts');

/**
 * kaiwa as `npm start` runs it, configured by `env` (its store), in a process of its own: `userId`
 * asks for a report, whose background work never ends; once the reply says it started, the
 * process is SIGKILLed. What it noted of the work is left in its store for the next process.
 */
export async function killMidBackgroundWork(env: Record<string, string>): Promise<void> {
  const line = await startFakeLine();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--disable-warning=ExperimentalWarning', crashChild],
    {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        ...env,
        LINE_CHANNEL_SECRET: CHANNEL_SECRET,
        LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
        LINE_API_BASE_URL: line.url,
        LINE_DATA_API_BASE_URL: line.url,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const killed = new Promise((resolve) => child.on('exit', resolve));
  try {
    await vi.waitFor(() => expect(printed).toMatch(/listening /), { timeout: 20_000 });
    const body = JSON.stringify(
      webhookBody([
        {
          ...textMessageEvent,
          timestamp: Date.now(),
          source: { type: 'user', userId },
          replyToken: line.emulator.issueReplyToken(userId),
        },
      ]),
    );
    await fetch(`${/listening (\S+)/.exec(printed)![1]}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, CHANNEL_SECRET) },
      body,
    });
    await vi.waitFor(() => expect(line.requestsTo('/v2/bot/message/reply')).toHaveLength(1), {
      timeout: 10_000,
    });
  } finally {
    child.kill('SIGKILL');
    await killed;
    await line.close();
  }
}
