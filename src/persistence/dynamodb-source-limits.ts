/** DynamoDB's and kaiwa's limits on what one write of the source store holds. */
export interface DynamoDbSourceStoreLimits {
  /** Actions in one TransactWriteItems (DynamoDB: 100). */
  readonly transactionActions: number;
  /** Bytes of the items in one transaction, under DynamoDB's 4 MB. */
  readonly transactionBytes: number;
  /** JSON bytes of the records in one history page (compressed, a page stays far below 400 KB). */
  readonly pageJsonBytes: number;
  /**
   * What the head's tail may hold (JSON bytes, records) before a transaction moves it to a
   * page: about one closing tool entry, so the head stays under 1 KB (docs/persistence.md).
   */
  readonly tailJsonBytes: number;
  readonly tailRecords: number;
}

export const defaultDynamoDbSourceStoreLimits: DynamoDbSourceStoreLimits = {
  transactionActions: 100,
  transactionBytes: 3_500_000,
  pageJsonBytes: 256 * 1024,
  tailJsonBytes: 1024,
  tailRecords: 4,
};
