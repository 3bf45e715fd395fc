import type { IncomingMessage, ServerResponse } from 'node:http';
import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDbItemSize, writeUnits, type ItemValue } from '../../src/persistence/dynamodb-item-size.js';
import { collect, forward, relay, startProxyServer } from './proxy-server.js';

// A small HTTP proxy between the SDK and DynamoDB Local that counts capacity units the way
// DynamoDB bills them (DynamoDB Local reports none). For every write it reads each item before
// and after, straight from DynamoDB Local, and bills:
// - PutItem, UpdateItem: 1 WCU per started KB of the larger of the old and the new item;
//   DeleteItem: of the deleted item (at least 1);
// - TransactWriteItems: twice that for every action (prepare and commit);
// - BatchWriteItem: like the single writes;
// - the sparse work index: 1 WCU for each index entry written or removed (a keys-only entry is
//   under 1 KB), billed as a standard write even inside a transaction.
// Reads: GetItem and Query, 1 RCU per started 4 KB (strongly consistent) of what they returned.
// Requests go through one at a time, so the reads before and after see only that write.

/** One request the proxy passed on, with what it cost. */
export interface MeteredRequest {
  readonly operation: string;
  readonly ok: boolean;
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Per item written: its sort key, the larger of its sizes, and the units it cost. */
  readonly items: readonly { readonly sortKey: string; readonly bytes: number; readonly units: number }[];
  readonly indexUnits: number;
  /**
   * An UpdateItem that only moves a lease on (a heartbeat, or a renewal before a side effect):
   * paid by time held, not per turn, so a slow machine pays more of them.
   */
  readonly leaseRenewal: boolean;
}

export interface CapacityProxy {
  /** The endpoint for the SDK client under test. */
  readonly endpoint: string;
  readonly requests: readonly MeteredRequest[];
  writeUnits(): number;
  readUnits(): number;
  /** Forgets what was counted so far. */
  reset(): void;
  close(): Promise<void>;
}

type Key = Record<string, AttributeValue>;
interface WriteAction {
  readonly table: string;
  readonly key: Key;
  readonly kind: 'put' | 'update' | 'delete' | 'check';
}

/**
 * Starts the proxy in front of `upstream`. `reader` is a client that talks to DynamoDB Local
 * directly (its reads are not counted); `indexedAttribute` is the sparse index's key.
 */
export async function startCapacityProxy(options: {
  readonly upstream: string;
  readonly reader: DynamoDBClient;
  readonly keyAttributes?: readonly [string, string];
  readonly indexedAttribute?: string;
}): Promise<CapacityProxy> {
  const [partition, sort] = options.keyAttributes ?? ['pk', 'sk'];
  const indexed = options.indexedAttribute ?? 'work';
  const requests: MeteredRequest[] = [];

  const read = async (table: string, key: Key) => {
    const { Item } = await options.reader.send(
      new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }),
    );
    return Item;
  };

  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = Buffer.concat(await collect(incoming));
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const actions = writeActions(operation, input, [partition, sort]);
    const before = await Promise.all(actions.map((action) => read(action.table, action.key)));
    const response = await forward(options.upstream, incoming, body);
    const ok = response.status === 200;
    const after = ok ? await Promise.all(actions.map((action) => read(action.table, action.key))) : before;

    const factor = operation === 'TransactWriteItems' ? 2 : 1;
    const items = actions.map((action, index) => {
      const bytes = Math.max(sizeOf(before[index]), action.kind === 'delete' ? 0 : sizeOf(after[index]));
      return { sortKey: action.key[sort]?.S ?? '', bytes, units: factor * writeUnits(bytes) };
    });
    const indexUnits = ok
      ? actions.reduce((sum, _action, index) => sum + indexWrites(before[index], after[index], indexed), 0)
      : 0;
    const writeTotal = items.reduce((sum, item) => sum + item.units, 0) + indexUnits;
    requests.push({
      operation,
      ok,
      // A refused write is billed too (for the items its condition read).
      writeUnits: writeTotal,
      readUnits: ok ? readUnitsOf(operation, response.body) : 0,
      items,
      indexUnits,
      leaseRenewal: operation === 'UpdateItem' && isLeaseRenewal(input.UpdateExpression),
    });
    relay(outgoing, response);
  };

  const { endpoint, close } = await startProxyServer(handle, { serial: true });
  return {
    endpoint,
    requests,
    writeUnits: () => requests.reduce((sum, request) => sum + request.writeUnits, 0),
    readUnits: () => requests.reduce((sum, request) => sum + request.readUnits, 0),
    reset: () => {
      requests.length = 0;
    },
    close,
  };
}

function writeActions(
  operation: string,
  input: Record<string, unknown>,
  keys: readonly [string, string],
): WriteAction[] {
  const keyOf = (item: Key): Key => ({ [keys[0]]: item[keys[0]]!, [keys[1]]: item[keys[1]]! });
  const table = input.TableName as string;
  switch (operation) {
    case 'PutItem':
      return [{ table, key: keyOf(input.Item as Key), kind: 'put' }];
    case 'UpdateItem':
      return [{ table, key: input.Key as Key, kind: 'update' }];
    case 'DeleteItem':
      return [{ table, key: input.Key as Key, kind: 'delete' }];
    case 'BatchWriteItem':
      return Object.entries(
        input.RequestItems as Record<string, Record<string, { Item?: Key; Key?: Key }>[]>,
      ).flatMap(([name, writes]) =>
        writes.map((write): WriteAction =>
          write.PutRequest
            ? { table: name, key: keyOf(write.PutRequest.Item!), kind: 'put' }
            : { table: name, key: write.DeleteRequest!.Key!, kind: 'delete' },
        ),
      );
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, { TableName: string; Item?: Key; Key?: Key }>[]).map(
        (action) => {
          const [kind, body] = Object.entries(action)[0]!;
          const mapped = { Put: 'put', Update: 'update', Delete: 'delete', ConditionCheck: 'check' } as const;
          return {
            table: body.TableName,
            key: body.Item ? keyOf(body.Item) : body.Key!,
            kind: mapped[kind as keyof typeof mapped],
          };
        },
      );
    default:
      return [];
  }
}

/** Index entries written: one when the entry appears, one when it goes, two when its key changes. */
function indexWrites(before: Key | undefined, after: Key | undefined, indexed: string): number {
  const old = before?.[indexed]?.S;
  const now = after?.[indexed]?.S;
  if (old === now) return 0;
  return (old === undefined ? 0 : 1) + (now === undefined ? 0 : 1);
}

function readUnitsOf(operation: string, body: Buffer): number {
  if (operation !== 'GetItem' && operation !== 'Query') return 0;
  const output = JSON.parse(body.toString('utf8')) as { Item?: Key; Items?: Key[] };
  const bytes =
    operation === 'GetItem'
      ? sizeOf(output.Item)
      : (output.Items ?? []).reduce((sum, item) => sum + sizeOf(item), 0);
  return Math.max(1, Math.ceil(bytes / 4096));
}

function sizeOf(item: Key | undefined): number {
  if (item === undefined) return 0;
  return dynamoDbItemSize(
    Object.fromEntries(Object.entries(item).map(([name, value]) => [name, nativeValue(value)])),
  );
}

/** An attribute value as the item-size helper takes it, from the SDK's or the wire's shape. */
function nativeValue(value: AttributeValue): ItemValue {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.B !== undefined) {
    // Base64 text on the wire (the read units of a response), bytes from the SDK.
    const binary: unknown = value.B;
    return typeof binary === 'string' ? Buffer.from(binary, 'base64') : value.B;
  }
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map(Number));
  if (value.L !== undefined) return value.L.map(nativeValue);
  if (value.M !== undefined) {
    return Object.fromEntries(Object.entries(value.M).map(([name, element]) => [name, nativeValue(element)]));
  }
  throw new TypeError(`unsupported attribute value ${JSON.stringify(value)}`);
}

/** kaiwa's renewal sets the heartbeat and the lease's end, nothing else (dynamodb-ownership.ts). */
function isLeaseRenewal(expression: unknown): boolean {
  if (typeof expression !== 'string') return false;
  const assigned = expression
    .replace(/^SET\s+/, '')
    .split(',')
    .map((part) => part.split('=')[0]!.trim());
  return assigned.length === 2 && assigned.includes('#heartbeatAt') && assigned.includes('#leaseUntil');
}
