import path from 'node:path';
import { ownerIdentity, ownerProcessIsGone } from '../actors/index.js';
import { DynamoDbBackgroundLedger } from '../composition/index.js';
import type { KaiwaConfig } from '../config/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { createDynamoDbClient } from '../persistence/index.js';
import type { BackgroundLedger } from '../tools/index.js';

/** The SQLite file under `DATA_DIR` noting the tools' background work while it runs. */
export const BACKGROUND_FILE_NAME = 'background.db';

/**
 * Where `npm start` notes the tools' background work while it runs, so that work a crash left is
 * reported to its conversation (docs/design-notes.md, "Background work"): beside the SQLite store
 * a file of its own, read at the next start; on DynamoDB the table every process shares, read at
 * every start and every sweep for stranded work; in memory, nowhere.
 */
export async function openBackgroundLedger(
  config: KaiwaConfig,
  options: { clock: Clock; logger: Logger },
): Promise<(BackgroundLedger & { close(): void }) | undefined> {
  const { store } = config;
  switch (store.kind) {
    case 'sqlite': {
      // Imported here: the Lambda bundles must never load node:sqlite.
      const { SqliteBackgroundLedger } = await import('./sqlite-background-ledger.js');
      return SqliteBackgroundLedger.open({
        file: path.join(store.dataDir, BACKGROUND_FILE_NAME),
        logger: options.logger,
      });
    }
    case 'dynamodb': {
      const { table, endpoint, region } = store.dynamodb;
      const client = createDynamoDbClient({ region, endpoint });
      const ledger = new DynamoDbBackgroundLedger({
        client,
        tableName: table,
        owner: ownerIdentity(config.leaseMs),
        isOwnerGone: ownerProcessIsGone,
        ...options,
      });
      return {
        note: (call) => ledger.note(call),
        strike: (call) => ledger.strike(call),
        leftBehind: () => ledger.leftBehind(),
        close: () => {
          ledger.close();
          client.destroy();
        },
      };
    }
    case 'memory':
      return undefined;
  }
}
