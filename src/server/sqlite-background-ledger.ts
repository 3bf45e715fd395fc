import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../logging/index.js';
import { settled } from '../persistence/settled.js';
import { openSqliteFile, useSingleVersionSchema } from '../persistence/sqlite-file.js';
import { readChecked } from '../persistence/stored-records.js';
import type { BackgroundCall, BackgroundLedger } from '../tools/index.js';

/** Bumped with every change of the table; a newer file is refused rather than misread. */
const SCHEMA_VERSION = 1;

const schema = `
CREATE TABLE running (
  source_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  call TEXT NOT NULL,
  PRIMARY KEY (source_id, idempotency_key)
) STRICT, WITHOUT ROWID;
`;

interface RunningRow {
  readonly source_id: string;
  readonly idempotency_key: string;
  readonly call: string;
}

/**
 * `npm start`'s ledger of the tools' background work still running (`DATA_DIR/background.db`,
 * WAL): a row a piece, written when it starts and deleted once its outcome is in the inbox, so the
 * next start reports as interrupted what a crash left (docs/design-notes.md, "Background work").
 * The store's lock on `kaiwa.db` in the same directory keeps it to one process.
 */
export class SqliteBackgroundLedger implements BackgroundLedger {
  private readonly statements;

  private constructor(
    private readonly database: DatabaseSync,
    private readonly file: string,
    private readonly logger: Logger | undefined,
  ) {
    this.statements = {
      all: database.prepare('SELECT source_id, idempotency_key, call FROM running'),
      put: database.prepare(
        'INSERT OR REPLACE INTO running (source_id, idempotency_key, call) VALUES (?, ?, ?)',
      ),
      remove: database.prepare('DELETE FROM running WHERE source_id = ? AND idempotency_key = ?'),
    };
  }

  /** Opens (creating) the file. Throws naming it. */
  static async open(options: { file: string; logger?: Logger }): Promise<SqliteBackgroundLedger> {
    await mkdir(path.dirname(options.file), { recursive: true });
    const database = openSqliteFile(
      options.file,
      { busyTimeoutMs: 1_000, what: 'the background work ledger' },
      (opened) => useSingleVersionSchema(opened, SCHEMA_VERSION, schema),
    );
    return new SqliteBackgroundLedger(database, options.file, options.logger);
  }

  note(call: BackgroundCall): Promise<void> {
    return settled(() => {
      this.statements.put.run(call.source.id, call.idempotencyKey, JSON.stringify(call));
    });
  }

  strike(call: BackgroundCall): Promise<void> {
    return settled(() => {
      this.statements.remove.run(call.source.id, call.idempotencyKey);
    });
  }

  leftBehind(): Promise<readonly BackgroundCall[]> {
    return settled(() =>
      (this.statements.all.all() as unknown as RunningRow[]).flatMap((row) => this.parsed(row)),
    );
  }

  /** Closes the file; again, nothing. */
  close(): void {
    try {
      this.database.close();
    } catch {
      // closed already
    }
  }

  /** A row that is not its call is damage to look at: logged and left in the file, never reported. */
  private parsed(row: RunningRow): BackgroundCall[] {
    const { value, error } = readChecked<BackgroundCall>(
      () => JSON.parse(row.call),
      (call) =>
        isBackgroundCall(call) &&
        call.source.id === row.source_id &&
        call.idempotencyKey === row.idempotency_key
          ? undefined
          : 'not that call',
    );
    if (value) return [value];
    this.logger?.error('background work ledger row cannot be read; left in the file, not reported', {
      file: this.file,
      sourceId: row.source_id,
      error,
    });
    return [];
  }
}

function isBackgroundCall(value: unknown): value is BackgroundCall {
  const call = value as Partial<BackgroundCall> | null;
  return (
    typeof call?.toolName === 'string' &&
    typeof call.idempotencyKey === 'string' &&
    typeof call.source?.id === 'string' &&
    typeof call.source.kind === 'string'
  );
}
