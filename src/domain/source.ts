/** The three kinds of LINE conversation; each is one actor. */
export type SourceKind = 'user' | 'group' | 'room';

/**
 * A LINE source. `id` is the userId, groupId or roomId: the actor's key.
 */
export interface Source {
  readonly kind: SourceKind;
  readonly id: string;
}
