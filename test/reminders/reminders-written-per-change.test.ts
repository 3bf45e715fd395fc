import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel, callReply, callTools } from '../../src/model/index.js';
import { openSqliteReminderList } from '../../src/reminders/index.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { webhookBody } from '../support/webhook-fixtures.js';

const directories: string[] = [];
afterEach(() =>
  Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true }))),
);

/** Bytes this process has handed to write(2) so far (Linux). */
async function bytesWritten(): Promise<number> {
  const io = await readFile('/proc/self/io', 'utf8');
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1]);
}

describe('local reminders on a store with many waiting', () => {
  it.runIf(process.platform === 'linux')(
    'write the change a turn makes, not every waiting reminder',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-reminders-many-'));
      directories.push(dataDir);
      // 10,000 reminders in 1,000 chats, as the previous release kept them (2.7 MB of JSON).
      const sources: Record<string, unknown[]> = {};
      const now = Date.now();
      for (let index = 0; index < 10_000; index++) {
        const chat = `U${String(index % 1_000).padStart(32, '0')}`;
        (sources[chat] ??= []).push({
          id: crypto.randomUUID(),
          source: { kind: 'user', id: chat },
          dueAt: now + 86_400_000 + index * 1_000,
          text: 'take the medicine with a glass of water after lunch',
          requestedBy: chat,
          createdAt: now,
        });
      }
      const listBytes = Buffer.byteLength(JSON.stringify({ version: 2, sources }));
      await writeFile(path.join(dataDir, 'reminders.json'), JSON.stringify({ version: 2, sources }));
      const running = await startKaiwaWithFakeLine({
        model: new ScriptedModel([
          callTools(['set_reminder', { text: 'stand up', delay_minutes: 60 }]),
          callReply('Reminder set.'),
        ]),
        env: { STORE: 'sqlite', DATA_DIR: dataDir },
      });
      try {
        const userId = 'U' + 'a'.repeat(32);
        const before = await bytesWritten();
        await running.post(
          JSON.stringify(
            webhookBody([textEvent(running.line, { type: 'user', userId }, 'stand up in an hour') as never]),
          ),
        );
        await running.kaiwa.host.whenSettled();
        const written = (await bytesWritten()) - before;

        expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1);
        // The turn (webhook, reply, the new reminder) writes kilobytes; the list is 2.7 MB.
        expect(listBytes).toBeGreaterThan(2_500_000);
        expect(written).toBeLessThan(listBytes / 10);
        console.log(`one turn wrote ${written} B; the list is ${listBytes} B`);
      } finally {
        await running.close();
      }
      // Imported at start, and the new reminder kept beside the 10,000.
      const list = await openSqliteReminderList({ file: path.join(dataDir, 'reminders.db') });
      try {
        expect(await list.all()).toHaveLength(10_001);
      } finally {
        list.close();
      }
    },
  );
});
