import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../logging/index.js';
import { failedCondition } from '../persistence/dynamodb-cancellation.js';
import { DUE_REMINDERS_PARTITION, REMINDER_PREFIX, padNumber } from '../persistence/dynamodb-table.js';
import { transactWrite, type TableClient } from '../persistence/dynamodb-writes.js';
import { readChecked } from '../persistence/stored-records.js';
import { isReminder, type Reminder } from './reminder.js';
import type { ReminderClaim, SharedReminders } from './shared-reminders.js';

/** Attempts of a change that found the reminder changed by another process since it read it. */
const CHANGE_ATTEMPTS = 3;

/**
 * The reminders of `npm start` on DynamoDB, in kaiwa's table (docs/persistence.md): each one an
 * item in its source's partition (`R#<id>`: listed and cancelled there) and an item in the due
 * partition (`REMINDERS#DUE`, sorted by due time: what every process reads for those falling
 * due). A change writes both in one transaction, conditional on what it read, so processes
 * changing one reminder at once never leave the two apart.
 */
export class DynamoDbSharedReminders implements SharedReminders {
  private readonly table: TableClient;
  private readonly logger: Logger | undefined;

  constructor(options: { client: DynamoDBClient; tableName: string; logger?: Logger }) {
    this.table = { documents: DynamoDBDocumentClient.from(options.client), tableName: options.tableName };
    this.logger = options.logger;
  }

  async put(reminder: Reminder): Promise<void> {
    const dueKey = dueKeyOf(reminder);
    await this.change(reminder.source.id, reminder.id, (previous) => [
      this.putSourceItem(reminder, previous),
      this.putDueItem(reminder),
      ...(previous !== undefined && previous !== dueKey ? [this.deleteDueItem(previous)] : []),
    ]);
  }

  async remove(sourceId: string, reminderId: string): Promise<boolean> {
    let found = false;
    await this.change(sourceId, reminderId, (previous) => {
      found = previous !== undefined;
      return previous === undefined
        ? []
        : [this.deleteSourceItem(sourceId, reminderId, previous), this.deleteDueItem(previous)];
    });
    return found;
  }

  async ofSource(sourceId: string): Promise<Reminder[]> {
    const reminders = await this.query({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeValues: { ':pk': sourceId, ':prefix': REMINDER_PREFIX },
    });
    return reminders.sort((a, b) => a.dueAt - b.dueAt);
  }

  dueBy(until: number, limit: number): Promise<Reminder[]> {
    // Keys start with the due time in fixed width: before the next millisecond's is due by `until`.
    return this.query(
      {
        KeyConditionExpression: '#pk = :pk AND #sk < :after',
        ExpressionAttributeValues: { ':pk': DUE_REMINDERS_PARTITION, ':after': padNumber(until + 1, 15) },
      },
      limit,
    );
  }

  async claim(reminder: Reminder, claim: ReminderClaim): Promise<boolean> {
    try {
      await this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: sourceKey(reminder.source.id, reminder.id),
          UpdateExpression: 'SET #claimedBy = :by, #claimedUntil = :until',
          // This occurrence still, and nobody else's (a claim runs out: its process may have died).
          ConditionExpression:
            '#dueKey = :dueKey AND (attribute_not_exists(#claimedUntil) OR #claimedUntil <= :at OR #claimedBy = :by)',
          ExpressionAttributeNames: {
            '#dueKey': 'dueKey',
            '#claimedBy': 'claimedBy',
            '#claimedUntil': 'claimedUntil',
          },
          ExpressionAttributeValues: {
            ':dueKey': dueKeyOf(reminder),
            ':by': claim.by,
            ':at': claim.at,
            ':until': claim.until,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async delivered(reminder: Reminder, nextDueAt?: number): Promise<void> {
    const { id, source } = reminder;
    const dueKey = dueKeyOf(reminder);
    const next = nextDueAt === undefined ? undefined : { ...reminder, dueAt: nextDueAt };
    try {
      await transactWrite(this.table.documents, {
        TransactItems: next
          ? [this.putSourceItem(next, dueKey), this.deleteDueItem(dueKey), this.putDueItem(next)]
          : [this.deleteSourceItem(source.id, id, dueKey), this.deleteDueItem(dueKey)],
      });
    } catch (error) {
      // Moved on by another process, or cancelled: nothing left to do.
      if (!failedCondition(error, 0)) throw error;
    }
  }

  /**
   * Reads the reminder's due key, then writes `actions(it)` on condition that it is still that:
   * again, up to `CHANGE_ATTEMPTS` times, when another process changed the reminder in between.
   */
  private async change(
    sourceId: string,
    reminderId: string,
    actions: (previousDueKey: string | undefined) => TransactItem[],
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const items = actions(await this.storedDueKey(sourceId, reminderId));
      if (items.length === 0) return;
      try {
        await transactWrite(this.table.documents, { TransactItems: items });
        return;
      } catch (error) {
        if (attempt >= CHANGE_ATTEMPTS || !failedCondition(error, 0)) throw error;
      }
    }
  }

  private async storedDueKey(sourceId: string, reminderId: string): Promise<string | undefined> {
    const { Item } = await this.table.documents.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: sourceKey(sourceId, reminderId),
        ProjectionExpression: 'dueKey',
        ConsistentRead: true,
      }),
    );
    return typeof Item?.dueKey === 'string' ? Item.dueKey : undefined;
  }

  /** The reminders of a query, in key order; one that does not read back is logged and left. */
  private async query(
    condition: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, string> },
    limit = Infinity,
  ): Promise<Reminder[]> {
    const reminders: Reminder[] = [];
    const pages = paginateQuery(
      { client: this.table.documents, ...(Number.isFinite(limit) && { pageSize: limit }) },
      {
        TableName: this.table.tableName,
        ...condition,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const read = readChecked<Reminder>(
          () => JSON.parse(String(item.reminder)),
          (value) => (isReminder(value) ? undefined : 'not a reminder'),
        );
        if (read.value) reminders.push(read.value);
        else
          this.logger?.error('reminder item cannot be read; left in the table, not scheduled', {
            table: this.table.tableName,
            pk: item.pk,
            sk: item.sk,
            error: read.error,
          });
        if (reminders.length >= limit) return reminders;
      }
    }
    return reminders;
  }

  /** The source's item, written on condition that its due key is still `previous` (or it is new). */
  private putSourceItem(reminder: Reminder, previous: string | undefined): TransactItem {
    return {
      Put: {
        TableName: this.table.tableName,
        Item: {
          ...sourceKey(reminder.source.id, reminder.id),
          reminder: JSON.stringify(reminder),
          dueKey: dueKeyOf(reminder),
        },
        ...unchangedSince(previous),
      },
    };
  }

  private deleteSourceItem(sourceId: string, reminderId: string, previous: string): TransactItem {
    return {
      Delete: {
        TableName: this.table.tableName,
        Key: sourceKey(sourceId, reminderId),
        ...unchangedSince(previous),
      },
    };
  }

  private putDueItem(reminder: Reminder): TransactItem {
    return {
      Put: {
        TableName: this.table.tableName,
        Item: { pk: DUE_REMINDERS_PARTITION, sk: dueKeyOf(reminder), reminder: JSON.stringify(reminder) },
      },
    };
  }

  private deleteDueItem(dueKey: string): TransactItem {
    return { Delete: { TableName: this.table.tableName, Key: { pk: DUE_REMINDERS_PARTITION, sk: dueKey } } };
  }
}

type TransactItem = NonNullable<Parameters<typeof transactWrite>[1]['TransactItems']>[number];

function sourceKey(sourceId: string, reminderId: string) {
  return { pk: sourceId, sk: `${REMINDER_PREFIX}${reminderId}` };
}

/** The reminder's key in the due partition: its due time first, so a range read finds the due. */
function dueKeyOf(reminder: Reminder): string {
  return `${padNumber(reminder.dueAt, 15)}#${reminder.source.id}#${reminder.id}`;
}

/** The condition of a change to a source's reminder item: it is still as it was read. */
function unchangedSince(previous: string | undefined): {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, string>;
} {
  return previous === undefined
    ? { ConditionExpression: 'attribute_not_exists(#sk)', ExpressionAttributeNames: { '#sk': 'sk' } }
    : {
        ConditionExpression: '#dueKey = :previous',
        ExpressionAttributeNames: { '#dueKey': 'dueKey' },
        ExpressionAttributeValues: { ':previous': previous },
      };
}
