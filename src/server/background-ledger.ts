import path from 'node:path';
import { ownerIdentity, ownerProcessIsGone } from '../actors/index.js';
import { DynamoDbBackgroundLedger } from '../composition/index.js';
import type { KaiwaConfig } from '../config/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { BackgroundLedger } from '../tools/index.js';
import type { SharedTable } from './shared-table.js';

/** The SQLite file under `DATA_DIR` noting the tools' background work while it runs. */
export const BACKGROUND_FILE_NAME = 'background.db';

/**
 * Where `npm start` notes the tools' background work while it runs, so that work a crash left is
 * reported to its conversation (docs/design-notes.md, "Background work"): beside the SQLite store
 * a file of its own, read at the next start; on DynamoDB the table every process shares
 * (`sharedTable`), read at every start and every sweep for stranded work; in memory, nowhere.
 */
export async function openBackgroundLedger(
  config: KaiwaConfig,
  options: { clock: Clock; logger: Logger; sharedTable: SharedTable | undefined },
): Promise<(BackgroundLedger & { close(): void }) | undefined> {
  const { store } = config;
  const { sharedTable, ...context } = options;
  if (sharedTable)
    return new DynamoDbBackgroundLedger({
      ...sharedTable,
      owner: ownerIdentity(config.leaseMs),
      isOwnerGone: ownerProcessIsGone,
      ...context,
    });
  if (store.kind !== 'sqlite') return undefined;
  // Imported here: the Lambda bundles must never load node:sqlite.
  const { SqliteBackgroundLedger } = await import('./sqlite-background-ledger.js');
  return SqliteBackgroundLedger.open({
    file: path.join(store.dataDir, BACKGROUND_FILE_NAME),
    logger: context.logger,
  });
}
