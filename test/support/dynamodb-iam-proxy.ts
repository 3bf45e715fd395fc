import type { IncomingMessage, ServerResponse } from 'node:http';
import { collect, forward, relay, startProxyServer } from './proxy-server.js';

// DynamoDB Local checks no permissions; AWS does. This proxy in front of it lets a request
// through only when a role's policy allows every IAM action the request needs, and otherwise
// answers as DynamoDB does: 400 `AccessDeniedException`. A transaction needs the action of each
// of its items (`Put` → `dynamodb:PutItem`, `ConditionCheck` → `dynamodb:ConditionCheckItem`, …),
// any other request the action of its own name.

const TRANSACT_ITEM_ACTIONS: Readonly<Record<string, string>> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

export interface IamProxy {
  /** The endpoint for the code under test. */
  readonly endpoint: string;
  /** Every action requests needed, allowed or not, in order. */
  readonly needed: readonly string[];
  /** The actions refused. */
  readonly denied: readonly string[];
  close(): Promise<void>;
}

/** Starts the proxy in front of `upstream`, allowing exactly `allowed` (e.g. `dynamodb:Query`). */
export async function startIamProxy(options: {
  readonly upstream: string;
  readonly allowed: readonly string[];
}): Promise<IamProxy> {
  const allowed = new Set(options.allowed);
  const needed: string[] = [];
  const denied: string[] = [];

  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = Buffer.concat(await collect(incoming));
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    const actions = actionsOf(
      operation,
      JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>,
    );
    needed.push(...actions);
    const refused = actions.filter((action) => !allowed.has(action));
    if (refused.length > 0) {
      denied.push(...refused);
      outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      outgoing.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
          message: `User: arn:aws:sts::123456789012:assumed-role/test is not authorized to perform: ${refused[0]}`,
        }),
      );
      return;
    }
    relay(outgoing, await forward(options.upstream, incoming, body));
  };

  const { endpoint, close } = await startProxyServer(handle);
  return { endpoint, needed, denied, close };
}

function actionsOf(operation: string, input: Record<string, unknown>): string[] {
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const items = (input.TransactItems ?? []) as Record<string, unknown>[];
    return [
      ...new Set(
        items.flatMap((item) =>
          Object.keys(item).map((kind) => TRANSACT_ITEM_ACTIONS[kind] ?? `unknown:${kind}`),
        ),
      ),
    ];
  }
  return [`dynamodb:${operation}`];
}
