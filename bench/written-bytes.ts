import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';

/** Bytes a process has handed to write(2) and its kind, and the part of them that went to TCP. */
export interface WrittenBytes {
  /** `wchar` of `/proc/self/io`: every byte handed to write(2), pwrite(2), writev(2)… */
  readonly total: number;
  /** Bytes written to TCP sockets (HTTP in and out); not the store's. */
  readonly sockets: number;
}

/**
 * Counts from now on the bytes this process writes, and how many of them went to sockets, so
 * the rest — `total − sockets` — is what went to files: the store's physical writes (WAL frames,
 * checkpoints into the database, journal files). Sockets are found as they open, through
 * Node.js's `net.client.socket` and `net.server.socket` diagnostics channels (fetch included).
 * What remains besides files is small and counted too: IPC messages, libuv's 8-byte wake-ups,
 * log lines.
 */
export function trackWrittenBytes(): () => WrittenBytes {
  const open = new Set<Socket>();
  let closedBytes = 0;
  const track = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      closedBytes += socket.bytesWritten;
    });
  };
  subscribe('net.client.socket', track);
  subscribe('net.server.socket', track);
  return () => {
    let sockets = closedBytes;
    for (const socket of open) sockets += socket.bytesWritten;
    return { total: writeCharacters(), sockets };
  };
}

function writeCharacters(): number {
  const match = /^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  if (!match) throw new Error('/proc/self/io has no wchar line (Linux only)');
  return Number(match[1]);
}
