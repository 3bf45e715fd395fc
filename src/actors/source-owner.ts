import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SourceOwner } from '../persistence/index.js';

/** Who this process is when it owns sources: one identity per process start (or per host in tests). */
export interface OwnerIdentity {
  readonly ownerId: string;
  readonly host: string;
  readonly pid: number;
  readonly leaseMs: number;
}

/** A new identity for this process: host name, process id and a random part. */
export function ownerIdentity(leaseMs: number, ownerId?: string): OwnerIdentity {
  const host = hostname();
  return {
    ownerId: ownerId ?? `${host}:${process.pid}:${randomUUID().slice(0, 8)}`,
    host,
    pid: process.pid,
    leaseMs,
  };
}

/** The owner record to write now (its heartbeat is now). */
export function ownerAt(identity: OwnerIdentity, now: number): SourceOwner {
  return { ...identity, heartbeatAt: now };
}

/**
 * Whether an owner's process is certainly gone: it ran on this host and its process id no
 * longer exists. (Another host's owner is gone only when its lease runs out.)
 */
export function ownerProcessIsGone(owner: SourceOwner): boolean {
  if (owner.host !== hostname() || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
