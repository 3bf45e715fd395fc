import type { InboxItem } from '../../src/domain/index.js';
import type {
  Checkpoint,
  HistoryWindow,
  Ownership,
  SourceOwner,
  SourceStore,
  StoredProfile,
} from '../../src/persistence/index.js';

/** One call that writes, as the store saw it. */
export interface RecordedWrite {
  readonly kind:
    | 'accept'
    | 'acceptAndAcquire'
    | 'acquire'
    | 'renew'
    | 'release'
    | 'checkpoint'
    | 'forget'
    | 'saveProfile'
    | 'countAttempt';
  readonly sourceId: string;
  /** The JSON bytes of what the caller asked to write (a checkpoint's head and entries). */
  readonly bytes: number;
  readonly checkpoint?: Checkpoint;
}

/**
 * A source store that records every write and lets a test intervene before a checkpoint
 * (fail it, let another owner act first) or make every call hang from some point on (the
 * process "dies": nothing it does after that reaches the store).
 */
export class WatchedSourceStore implements SourceStore {
  readonly writes: RecordedWrite[] = [];
  /** Runs before each checkpoint reaches the store; throwing fails that checkpoint. */
  beforeCheckpoint: (checkpoint: Checkpoint, index: number) => void | Promise<void> = () => undefined;
  private checkpoints = 0;
  private dead = false;

  /** Present when the inner store has it (SQLite), recorded as one write. */
  readonly acceptAndAcquire?: SourceStore['acceptAndAcquire'];
  /** Present when the inner store has it (SQLite, memory): a checkpoint, recorded as one. */
  readonly closeTurn?: SourceStore['closeTurn'];
  /** Inbox reads, per source. */
  readonly inboxReads = new Map<string, number>();

  /** `closeTurn: false`: hide the inner store's `closeTurn`, so owners take the reading path. */
  constructor(
    readonly inner: SourceStore,
    options: { readonly closeTurn?: boolean } = {},
  ) {
    if (inner.acceptAndAcquire) {
      this.acceptAndAcquire = (item, owner) =>
        this.call(() => inner.acceptAndAcquire!(item, owner), {
          kind: 'acceptAndAcquire',
          sourceId: item.source.id,
          bytes: size(item),
        });
    }
    if (inner.closeTurn && options.closeTurn !== false) {
      this.closeTurn = async (checkpoint) => {
        if (this.dead) return hang();
        await this.beforeCheckpoint(checkpoint, this.checkpoints++);
        return this.call(() => inner.closeTurn!(checkpoint), {
          kind: 'checkpoint',
          sourceId: checkpoint.ownership.sourceId,
          bytes: size(checkpoint.snapshot) + size(checkpoint.appended),
          checkpoint,
        });
      };
    }
  }

  /** From now on every call hangs, as in a process that was killed. */
  die(): void {
    this.dead = true;
  }

  checkpointsOf(sourceId: string): Checkpoint[] {
    return this.writes.flatMap((write) =>
      write.kind === 'checkpoint' && write.sourceId === sourceId ? [write.checkpoint!] : [],
    );
  }

  accept(item: InboxItem) {
    return this.call(() => this.inner.accept(item), {
      kind: 'accept',
      sourceId: item.source.id,
      bytes: size(item),
    });
  }
  inbox(sourceId: string, limit?: number) {
    this.inboxReads.set(sourceId, (this.inboxReads.get(sourceId) ?? 0) + 1);
    return this.call(() => this.inner.inbox(sourceId, limit));
  }
  countAttempt(sourceId: string, key: string) {
    return this.call(() => this.inner.countAttempt(sourceId, key), {
      kind: 'countAttempt',
      sourceId,
      bytes: 0,
    });
  }
  acquire(sourceId: string, owner: SourceOwner, isGone: (owner: SourceOwner) => boolean) {
    return this.call(() => this.inner.acquire(sourceId, owner, isGone), {
      kind: 'acquire',
      sourceId,
      bytes: 0,
    });
  }
  renew(ownership: Ownership, heartbeatAt: number) {
    return this.call(() => this.inner.renew(ownership, heartbeatAt), {
      kind: 'renew',
      sourceId: ownership.sourceId,
      bytes: 0,
    });
  }
  release(ownership: Ownership) {
    return this.call(() => this.inner.release(ownership), {
      kind: 'release',
      sourceId: ownership.sourceId,
      bytes: 0,
    });
  }
  load(sourceId: string, window: HistoryWindow) {
    return this.call(() => this.inner.load(sourceId, window));
  }
  async checkpoint(checkpoint: Checkpoint) {
    if (this.dead) return hang<number>();
    await this.beforeCheckpoint(checkpoint, this.checkpoints++);
    const { snapshot, appended } = checkpoint;
    return this.call(() => this.inner.checkpoint(checkpoint), {
      kind: 'checkpoint',
      sourceId: checkpoint.ownership.sourceId,
      bytes: size(snapshot) + size(appended),
      checkpoint,
    });
  }
  forget(ownership: Ownership, throughKey: string) {
    return this.call(() => this.inner.forget(ownership, throughKey), {
      kind: 'forget',
      sourceId: ownership.sourceId,
      bytes: 0,
    });
  }
  profiles(sourceId: string) {
    return this.call(() => this.inner.profiles(sourceId));
  }
  saveProfile(ownership: Ownership, profile: StoredProfile) {
    return this.call(() => this.inner.saveProfile(ownership, profile), {
      kind: 'saveProfile',
      sourceId: ownership.sourceId,
      bytes: size(profile),
    });
  }
  sourcesWithWork() {
    return this.call(() => this.inner.sourcesWithWork());
  }
  listSources(limit?: number) {
    return this.call(() => this.inner.listSources(limit));
  }
  close() {
    return this.inner.close();
  }

  private async call<T>(body: () => Promise<T>, write?: RecordedWrite): Promise<T> {
    if (this.dead) return hang<T>();
    const result = await body();
    if (write) this.writes.push(write);
    return result;
  }
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function hang<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
