import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';

// TransactWriteItems fails as a whole with one reason per action, in action order. The SDK's
// retry strategy does not retry a cancelled transaction, so kaiwa reads the reasons itself.

/** Reasons that say "try again": another transaction held an item, or capacity ran short. */
const TRANSIENT_CODES = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/** The reason of action `index` when the transaction was cancelled by that action's condition. */
export function failedCondition(error: unknown, index: number): CancellationReason | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const reason = error.CancellationReasons?.[index];
  return reason?.Code === 'ConditionalCheckFailed' ? reason : undefined;
}

/** Cancelled only for transient reasons (no condition failed): the same transaction may succeed. */
export function isTransientCancellation(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  return (
    codes.some((code) => TRANSIENT_CODES.has(code)) &&
    codes.every((code) => code === 'None' || TRANSIENT_CODES.has(code))
  );
}
