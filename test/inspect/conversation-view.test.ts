import { describe, expect, it } from 'vitest';
import { sourceRow } from '../../src/inspect/index.js';

const groupId = 'C1a2b3c4d5e6f708192a3b4c5d6e7f809';
const roomId = 'R0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const userId = 'U0123456789abcdef0123456789abcdef';

// What people said in a chat: their names must not become the chat's name.
const spokenBy = (name: string) => ({
  profiles: { [userId]: { displayName: name } },
  history: [{ role: 'user', sender: { userId, displayName: name } }],
});

describe('the inspector names each source', () => {
  it.each<[string, string, unknown, string | undefined, string]>([
    [
      'a group by its title',
      groupId,
      { source: { kind: 'group', id: groupId }, chat: { title: 'Trip' }, ...spokenBy('Aiko') },
      undefined,
      'Trip',
    ],
    [
      'a group with no known title by its id, not by who spoke',
      groupId,
      { source: { kind: 'group', id: groupId }, chat: {}, ...spokenBy('Aiko') },
      undefined,
      'group C1a2b3…f809',
    ],
    [
      'a room by its id',
      roomId,
      { source: { kind: 'room', id: roomId }, chat: {}, ...spokenBy('Ken') },
      undefined,
      'room R0f1e2…e1f0',
    ],
    [
      'a group by the name the platform gives it when the snapshot has none',
      groupId,
      { source: { kind: 'group', id: groupId }, ...spokenBy('Aiko') },
      'Trip',
      'Trip',
    ],
    ['a stored group with no context by its id', groupId, undefined, undefined, 'group C1a2b3…f809'],
    [
      'a 1:1 chat by the user’s display name',
      userId,
      { source: { kind: 'user', id: userId }, ...spokenBy('Aiko') },
      undefined,
      'Aiko',
    ],
  ])('%s', (_case, sourceId, context, fallbackName, name) => {
    const row = sourceRow(sourceId, context === undefined ? undefined : { value: 'idle', context }, {
      live: true,
      ...(fallbackName && { fallbackName }),
    });

    expect(row.displayName).toBe(name);
  });
});
