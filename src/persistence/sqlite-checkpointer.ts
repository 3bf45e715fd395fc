import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../logging/index.js';

/** What SQLite does by itself when no checkpointer runs: a checkpoint every 1,000 WAL pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

// The thread's own code, a plain CommonJS script (no file to find, whether run through tsx or
// built): its own connection to the file, a PASSIVE checkpoint every `intervalMs`. PASSIVE never
// waits for a reader or writer, so the writing thread is never held up by it.
const CHECKPOINTER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const database = new DatabaseSync(workerData.file);
database.exec('PRAGMA busy_timeout = 0');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    const { busy, log, checkpointed } = checkpoint.get();
    parentPort.postMessage({ type: 'checkpointed', busy, log, checkpointed });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

/** One checkpoint's outcome, as SQLite reports it: WAL frames in all, and copied into the file. */
export interface CheckpointReport {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * Copies the WAL into the database file from a thread of its own, so that the thread serving
 * webhooks never does: with SQLite's automatic checkpoint, the commit that crossed 1,000 WAL pages
 * copied them and waited for the disk twice (fsync), holding every request meanwhile — up to
 * 362 ms in the runtime bench (docs/persistence.md). The writing connection's automatic
 * checkpoint is off while this runs; should the thread fail, it is turned back on and the failure
 * logged, so the WAL never grows without bound.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  /** The newest checkpoint the thread reported. */
  lastReport: CheckpointReport | undefined;
  /** Checkpoints failed in a row: logged at the first, the tenth, the hundredth… */
  private failedInARow = 0;

  constructor(
    private readonly writer: DatabaseSync,
    file: string,
    options: { readonly intervalMs: number; readonly logger?: Logger | undefined },
  ) {
    writer.exec('PRAGMA wal_autocheckpoint = 0');
    this.worker = new Worker(CHECKPOINTER_SCRIPT, {
      eval: true,
      workerData: { file, intervalMs: options.intervalMs },
    });
    this.worker.unref();
    this.worker.on('message', (message: { type: string; message?: string } & CheckpointReport) => {
      if (message.type === 'checkpointed') {
        this.lastReport = message;
        this.failedInARow = 0;
      } else if (Number.isInteger(Math.log10(++this.failedInARow))) {
        options.logger?.warn('WAL checkpoint failed; the next one tries again', {
          file,
          failedInARow: this.failedInARow,
          error: message.message,
        });
      }
    });
    let failure: unknown;
    this.worker.once('error', (error) => (failure = error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        // 0: stopped when asked. Anything else: it failed (an 'error' came first, if any).
        if (code !== 0) {
          options.logger?.error('WAL checkpointer stopped; the writing connection checkpoints again', {
            file,
            code,
            error: failure,
          });
          this.restoreAutocheckpoint();
        }
        resolve();
      }),
    );
  }

  /** Stops the thread and waits for it to close its connection; the writer then closes last. */
  async stop(): Promise<void> {
    // Kept alive until the thread is gone: with nothing else left, the process would end first.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }

  private restoreAutocheckpoint() {
    try {
      this.writer.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the writer is closed already
    }
  }
}
