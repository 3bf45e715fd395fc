import { collect, forward, relay, startProxyServer } from './proxy-server.js';

// A proxy between the SDK and DynamoDB Local that answers some requests with the errors
// DynamoDB gives under load — which DynamoDB Local, serving one test at a time, never does:
// a transaction cancelled because another one held an item, and throttling. The errors are
// shaped as DynamoDB sends them (JSON 1.0: `__type`, `Message`, a transaction's
// `CancellationReasons`, one per action in action order), so the real SDK parses them.

/** One request that reached the proxy: its operation, when, and whether the proxy failed it. */
export interface ProxiedRequest {
  readonly operation: string;
  /** Epoch ms of its arrival. */
  readonly at: number;
  readonly faulted: boolean;
  /** What the proxy answered instead of DynamoDB Local, when it did. */
  readonly fault?: DynamoDbFault;
}

/**
 * What the proxy answers instead of DynamoDB Local, for the requests `fault` picks. `lost-answer`
 * passes the request on — DynamoDB carries it out — and then drops the connection instead of
 * answering, as a network does: the SDK sees a reset and retries a write that went through.
 */
export type DynamoDbFault = 'transaction-conflict' | 'throttling' | 'lost-answer';

export interface FaultProxy {
  readonly endpoint: string;
  readonly requests: readonly ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the proxy in front of `upstream`. `fault` sees every request (its operation, as in
 * `DynamoDB_20120810.TransactWriteItems`, and its parsed body) and names the error to answer
 * with, or nothing to pass it on.
 */
export async function startFaultProxy(options: {
  readonly upstream: string;
  readonly fault: (operation: string, input: Record<string, unknown>) => DynamoDbFault | undefined;
}): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const { endpoint, close } = await startProxyServer(async (incoming, outgoing) => {
    const at = Date.now();
    const body = Buffer.concat(await collect(incoming));
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const fault = options.fault(operation, input);
    requests.push({ operation, at, faulted: fault !== undefined, ...(fault && { fault }) });
    if (fault === 'lost-answer') {
      await forward(options.upstream, incoming, body);
      outgoing.socket?.destroy();
      return;
    }
    if (fault) {
      outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      outgoing.end(JSON.stringify(errorBody(fault, input)));
      return;
    }
    relay(outgoing, await forward(options.upstream, incoming, body));
  });
  return {
    endpoint,
    requests,
    close,
  };
}

function errorBody(fault: Exclude<DynamoDbFault, 'lost-answer'>, input: Record<string, unknown>) {
  if (fault === 'throttling') {
    return {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded.',
    };
  }
  // The first action (a store's head) was held by another transaction; the others were fine.
  const actions = Array.isArray(input.TransactItems) ? input.TransactItems.length : 1;
  const reasons = Array.from({ length: actions }, (_, index) =>
    index === 0
      ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }
      : { Code: 'None' },
  );
  return {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons
      .map((reason) => reason.Code)
      .join(', ')}]`,
    CancellationReasons: reasons,
  };
}
