import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LAMBDA_FUNCTIONS,
  ROOT,
  TARGETS,
  packageLambdas,
  packagedFunction,
  runBundle,
  type PackagedFunction,
} from '../../bench/lambda-bundles.js';
import { readWorkerSettings } from '../../src/aws/index.js';
import { DynamoDbSourceStore, conversationTableDefinition } from '../../src/persistence/index.js';
import { startIamProxy, type IamProxy } from '../support/dynamodb-iam-proxy.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startEchoGemini } from '../support/echo-gemini.js';
import type { FakeGeminiServer } from '../support/fake-gemini-server.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { startFakeSsm } from './support/fake-ssm-server.js';
import { signedWebhookEvent, textEvent } from './support/lambda-events.js';
import { deliveredRecords, pipeFromTemplate } from './support/pipe-stand-in.js';
import { inboxInserts, StreamReader } from './support/stream-reader.js';

// `npm run package` (osls package, offline) once; then the CloudFormation template it wrote is
// read and checked, and each function's zip is unpacked and its bundle run under Node.js 22.

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}
interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DependsOn?: unknown;
  DeletionPolicy?: string;
}

let resources: Record<string, Resource>;
let conditions: Record<string, unknown>;
const packaged = {} as Record<(typeof LAMBDA_FUNCTIONS)[number], PackagedFunction>;

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}
function fn(name: 'Webhook' | 'Worker' | 'Reminder') {
  return resources[`${name}LambdaFunction`]!.Properties as {
    Handler: string;
    TracingConfig?: { Mode: string };
    ReservedConcurrentExecutions?: number;
    Runtime: string;
    Architectures: string[];
    Timeout: number;
    MemorySize: number;
    Role: unknown;
    Environment: { Variables: Record<string, unknown> };
  };
}
function statementsOf(role: string): Statement[] {
  const policies = resources[role]!.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}
function actionsOf(role: string): string[] {
  return statementsOf(role)
    .flatMap((statement) => statement.Action)
    .sort();
}

beforeAll(async () => {
  await packageLambdas();
  const template = JSON.parse(
    await readFile(path.join(ROOT, '.serverless', 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as { Resources: Record<string, Resource>; Conditions: Record<string, unknown> };
  resources = template.Resources;
  conditions = template.Conditions;
  for (const name of LAMBDA_FUNCTIONS) packaged[name] = await packagedFunction(name);
}, 180_000);

describe('npm run package: the CloudFormation template', () => {
  it('three functions on Node.js 22, arm64, each with its own role', () => {
    expect(
      ofType('AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ReminderLambdaFunction', 'WebhookLambdaFunction', 'WorkerLambdaFunction']);
    for (const name of ['Webhook', 'Worker', 'Reminder'] as const) {
      expect(fn(name)).toMatchObject({
        Handler: `src/aws/${name.toLowerCase()}-handler.handler`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Role: { 'Fn::GetAtt': [`${name}Role`, 'Arn'] },
      });
    }
    expect(resources.IamRoleLambdaExecution).toBeUndefined(); // no shared role
  });

  it('active X-Ray tracing on every function; each role may write segments and nothing else managed', () => {
    for (const name of ['Webhook', 'Worker', 'Reminder'] as const) {
      expect(fn(name).TracingConfig).toEqual({ Mode: 'Active' });
      expect(resources[`${name}Role`]!.Properties.ManagedPolicyArns).toEqual([
        { 'Fn::Sub': 'arn:${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess' },
      ]);
    }
  });

  it('the worker is sized for a turn that mostly waits: 256 MB (docs/aws.md, "Cost per million turns")', () => {
    expect(fn('Worker').MemorySize).toBe(256);
    expect(fn('Webhook').MemorySize).toBe(512);
  });

  it('the webhook reserves no concurrency unless asked (new accounts may have a quota of 10)', () => {
    expect(fn('Webhook').ReservedConcurrentExecutions).toBeUndefined();
  });

  it('the dead-letter alarm notifies an SNS topic; the email subscription exists only when given', () => {
    expect(resources.DeadLetterAlarm!.Properties.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
    expect(resources.AlarmTopic!.Type).toBe('AWS::SNS::Topic');
    const subscription = resources.AlarmEmailSubscription as Resource & { Condition?: string };
    expect(subscription).toMatchObject({
      Type: 'AWS::SNS::Subscription',
      Condition: 'HasAlarmEmail',
      Properties: { TopicArn: { Ref: 'AlarmTopic' }, Protocol: 'email' },
    });
    // Without alarmEmail the condition compares '' with '': false, no subscription is made.
    expect(conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
  });

  it('the table can be adopted by a new stack after `osls remove`: retained, its own name, no references', () => {
    const table = resources.ConversationTable!;
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(table.Properties.TableName).toBe('kaiwa-dev');
    // A resource import takes the table alone (docs/aws.md, "Deploy after remove"): it may not
    // refer to anything else in the stack.
    expect(JSON.stringify(table)).not.toMatch(/"(Ref|Fn::GetAtt|Fn::Sub|Fn::ImportValue)"/);
  });

  it("the worker's turn deadline and persist margin fit inside its timeout", () => {
    const env = fn('Worker').Environment.Variables;
    const turnDeadlineMs = Number(env.KAIWA_TURN_DEADLINE_MS);
    const persistMarginMs = Number(env.KAIWA_WORKER_PERSIST_MARGIN_MS);
    expect(turnDeadlineMs + persistMarginMs).toBeLessThanOrEqual(fn('Worker').Timeout * 1000 - 10_000);
    expect(fn('Webhook').Timeout).toBeLessThanOrEqual(10);
  });

  it('POST /webhook on an HTTP API, payload format 2.0, to the webhook function', () => {
    const [, route] = ofType('AWS::ApiGatewayV2::Route')[0]!;
    expect(route.Properties.RouteKey).toBe('POST /webhook');
    const [, integration] = ofType('AWS::ApiGatewayV2::Integration')[0]!;
    expect(integration.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': ['WebhookLambdaFunction', 'Arn'] },
    });
  });

  it('the table is the one the store defines, with its stream, TTL and point-in-time recovery', () => {
    const table = resources.ConversationTable!;
    // Without the work index: on Lambda the work queue says which source has work.
    const definition = conversationTableDefinition('ignored', { workIndex: false });
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: definition.BillingMode,
      KeySchema: definition.KeySchema,
      StreamSpecification: { StreamViewType: definition.StreamSpecification!.StreamViewType },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(table.Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining(definition.AttributeDefinitions!),
    );
    expect(table.Properties.AttributeDefinitions).toHaveLength(definition.AttributeDefinitions!.length);
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
  });

  it('the pipe hands inbox inserts from the stream to the FIFO work queue, one message group per source', () => {
    const pipes = ofType('AWS::Pipes::Pipe');
    expect(pipes).toHaveLength(1);
    const pipe = pipes[0]![1].Properties;
    expect(pipe).toMatchObject({
      RoleArn: { 'Fn::GetAtt': ['PipeRole', 'Arn'] },
      Source: { 'Fn::GetAtt': ['ConversationTable', 'StreamArn'] },
      SourceParameters: {
        DynamoDBStreamParameters: {
          StartingPosition: 'TRIM_HORIZON',
          MaximumRetryAttempts: -1,
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } },
        },
      },
      Target: { 'Fn::GetAtt': ['WorkQueue', 'Arn'] },
      TargetParameters: {
        SqsQueueParameters: {
          MessageGroupId: '$.dynamodb.Keys.pk.S',
          MessageDeduplicationId: '$.dynamodb.Keys.sk.S',
        },
      },
    });
    const filters = (pipe.SourceParameters as { FilterCriteria: { Filters: { Pattern: string }[] } })
      .FilterCriteria.Filters;
    expect(filters.map((filter) => JSON.parse(filter.Pattern) as unknown)).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'INBOX#' }] } } } },
    ]);
    expect(statementsOf('PipeRole')).toEqual([
      expect.objectContaining({
        Action: [
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
          'dynamodb:ListStreams',
        ],
        Resource: { 'Fn::GetAtt': ['ConversationTable', 'StreamArn'] },
      }),
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': ['WorkQueue', 'Arn'] },
      }),
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] },
      }),
    ]);
  });

  it('the work queue is FIFO, deduplicated per group, with a FIFO dead-letter queue by redrive', () => {
    expect(resources.WorkQueue!.Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': ['WorkDeadLetterQueue', 'Arn'] },
        maxReceiveCount: expect.any(Number) as number,
      },
    });
    expect(resources.WorkDeadLetterQueue!.Properties).toMatchObject({ FifoQueue: true });
    expect(resources.WorkDeadLetterAlarm!.Properties).toMatchObject({
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['WorkDeadLetterQueue', 'QueueName'] } }],
    });
  });

  it('the worker consumes the queue: partial batch failures, a maximum concurrency, the one event source', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['WorkQueue', 'Arn'] },
      FunctionName: { 'Fn::GetAtt': ['WorkerLambdaFunction', 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('timeouts: the worker timeout <= its ownership lease <= the visibility timeout - 30 s', () => {
    const timeoutMs = fn('Worker').Timeout * 1000;
    const leaseMs = Number(fn('Worker').Environment.Variables.KAIWA_LEASE_MS);
    const visibilityTimeoutS = resources.WorkQueue!.Properties.VisibilityTimeout as number;
    expect(timeoutMs).toBeLessThanOrEqual(leaseMs);
    expect(leaseMs).toBeLessThanOrEqual(visibilityTimeoutS * 1000 - 30_000);
    expect(fn('Worker').Environment.Variables.KAIWA_WORKER_VISIBILITY_TIMEOUT_S).toBe(
      String(visibilityTimeoutS),
    );
  });

  it('no deferral schedules and no sweep: SQS does the retries; only reminders are scheduled', () => {
    expect(ofType('AWS::Events::Rule')).toHaveLength(0);
    const configs = ofType('AWS::Lambda::EventInvokeConfig').map(([, config]) => config.Properties);
    expect(configs).toEqual([
      expect.objectContaining({
        FunctionName: { Ref: 'ReminderLambdaFunction' },
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } } },
      }),
    ]);
    expect(resources.DeadLetterQueue!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    expect(JSON.stringify(resources.SchedulerRole)).not.toContain('-worker');
  });

  it('least privilege: each role has exactly the actions its function needs', () => {
    expect(actionsOf('WebhookRole')).toEqual([
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'ssm:GetParameters',
    ]);
    expect(actionsOf('ReminderRole')).toEqual([
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'sqs:SendMessage',
    ]);
    expect(actionsOf('WorkerRole')).toEqual(
      [
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'iam:PassRole',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'scheduler:CreateSchedule',
        'scheduler:DeleteSchedule',
        'scheduler:GetSchedule',
        'scheduler:ListSchedules',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
        'ssm:GetParameters',
      ].sort(),
    );
    expect(actionsOf('SchedulerRole')).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    for (const role of ['WebhookRole', 'WorkerRole', 'ReminderRole', 'SchedulerRole', 'PipeRole']) {
      for (const statement of statementsOf(role)) {
        expect(statement.Effect).toBe('Allow');
        expect([statement.Action].flat().some((action) => action.includes('*'))).toBe(false);
        // ListSchedules has no resource-level permissions: the one wildcard resource.
        if (statement.Resource === '*') expect(statement.Action).toBe('scheduler:ListSchedules');
      }
    }
  });

  it('the worker knows its queue, to hand back at once what an invocation had no time for', () => {
    expect(fn('Worker').Environment.Variables.KAIWA_WORK_QUEUE_URL).toEqual({ Ref: 'WorkQueue' });
    const changes = statementsOf('WorkerRole').filter((statement) =>
      [statement.Action].flat().includes('sqs:ChangeMessageVisibility'),
    );
    expect(changes.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': ['WorkQueue', 'Arn'] }]);
  });

  it('logs at warn by default: the metrics still count every turn (docs/aws.md, "Cost per million turns")', () => {
    for (const name of ['Webhook', 'Worker', 'Reminder'] as const) {
      expect(fn(name).Environment.Variables.LOG_LEVEL).toBe('warn');
    }
  });

  it('secrets: only SSM parameter names in the template, and each role reads only its own', () => {
    const json = JSON.stringify(resources);
    for (const variable of ['LINE_CHANNEL_SECRET', 'LINE_CHANNEL_ACCESS_TOKEN', 'GEMINI_API_KEY']) {
      expect(json).not.toContain(`"${variable}"`);
    }
    expect(fn('Webhook').Environment.Variables).toMatchObject({
      KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/dev/line-channel-secret',
      STORE: 'dynamodb',
      DYNAMODB_TABLE: { Ref: 'ConversationTable' },
    });
    expect(fn('Worker').Environment.Variables).toMatchObject({
      KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/dev/line-channel-secret',
      KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/dev/line-channel-access-token',
      KAIWA_SSM_GEMINI_API_KEY: '/kaiwa/dev/gemini-api-key',
    });
    const ssmResources = (role: string) =>
      JSON.stringify(statementsOf(role).filter((statement) => statement.Action === 'ssm:GetParameters'));
    expect(ssmResources('WebhookRole')).toContain('/kaiwa/dev/line-channel-secret');
    expect(ssmResources('WebhookRole')).not.toContain('access-token');
    expect(ssmResources('WebhookRole')).not.toContain('gemini');
    expect(ssmResources('WorkerRole')).toContain('/kaiwa/dev/gemini-api-key');
  });

  it("the worker's environment is complete for Lambda, and its scheduler role can only be passed to the scheduler", () => {
    const variables = Object.fromEntries(
      Object.entries(fn('Worker').Environment.Variables).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : 'resolved-by-cloudformation',
      ]),
    );
    expect(() => readWorkerSettings(variables)).not.toThrow();
    const passRole = statementsOf('WorkerRole').find((statement) => statement.Action === 'iam:PassRole');
    expect(passRole).toMatchObject({
      Resource: { 'Fn::GetAtt': ['SchedulerRole', 'Arn'] },
      Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    });
    expect(resources.SchedulerRole!.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Principal: { Service: 'scheduler.amazonaws.com' } }],
    });
    expect(
      ofType('AWS::Scheduler::ScheduleGroup')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ReminderScheduleGroup']);
  });

  it('logs are kept 14 days', () => {
    const groups = ofType('AWS::Logs::LogGroup').map(([, group]) => group.Properties);
    expect(groups.map((group) => group.LogGroupName).sort()).toEqual([
      '/aws/lambda/kaiwa-dev-reminder',
      '/aws/lambda/kaiwa-dev-webhook',
      '/aws/lambda/kaiwa-dev-worker',
    ]);
    for (const group of groups) expect(group.RetentionInDays).toBe(14);
  });

  it('each zip holds its bundle only (no YAML schemas, no metafile); the webhook has no Gemini SDK', async () => {
    for (const name of LAMBDA_FUNCTIONS) {
      expect(packaged[name].entries.map((entry) => entry.name)).toEqual([`src/aws/${name}-handler.mjs`]);
    }
    const meta = JSON.parse(
      await readFile(
        path.join(ROOT, '.esbuild', '.build', 'src', 'aws', 'webhook-handler-meta.json'),
        'utf8',
      ),
    ) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((input) => /@google\/genai|express|yaml|line-schemas|xstate/.test(input))).toEqual(
      [],
    );
    // It only accepts: none of the store's checkpoint, ownership, history or migration code is
    // in the bundle (modules read but shaken out count 0 bytes).
    const bundled = Object.values(meta.outputs).flatMap((output) =>
      Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) =>
        bytesInOutput > 0 ? [input] : [],
      ),
    );
    expect(bundled.some((input) => input.includes('src/persistence/dynamodb-inbox-writer.ts'))).toBe(true);
    expect(
      bundled.filter((input) =>
        /dynamodb-(source-store|checkpoint-writer|ownership|legacy-migration|history-reader|forget)/.test(
          input,
        ),
      ),
    ).toEqual([]);
    expect(inputs.some((input) => input.includes('src/line/webhook-handling.ts'))).toBe(true);
    // Every event is checked against LINE's webhook schema, compiled ahead of time (docs/security.md):
    // the bundle carries the generated validator, not ajv's compiler.
    expect(inputs.some((input) => input.includes('src/line/openapi/webhook-event-validate.js'))).toBe(true);
    expect(inputs.filter((input) => /ajv\/dist\/(core|compile|vocabularies)/.test(input))).toEqual([]);
    const workerMeta = JSON.parse(
      await readFile(path.join(ROOT, '.esbuild', '.build', 'src', 'aws', 'worker-handler-meta.json'), 'utf8'),
    ) as { inputs: Record<string, unknown> };
    // Only the emulator needs LINE's schemas (and yaml, express): not the worker either.
    expect(
      Object.keys(workerMeta.inputs).filter((input) => /openapi|yaml|express|src\/inspect/.test(input)),
    ).toEqual([]);
    // What the Gemini SDK's dependencies import but kaiwa never runs is a stub (about 105 KB).
    const workerInputs = Object.keys(workerMeta.inputs);
    expect(workerInputs.filter((input) => /node_modules\/(ws|web-streams-polyfill)\//.test(input))).toEqual(
      [],
    );
    expect(workerInputs).toEqual(expect.arrayContaining(['left-out:ws', 'left-out:web-streams-polyfill']));
    const webhookCode = packaged.webhook.entries[0]!.data.toString('utf8');
    expect(webhookCode).not.toContain('generativelanguage.googleapis.com');
    // The AWS SDK stays external — the Lambda runtime ships it — and is required, never imported,
    // as are Node.js's own modules (scripts/lambda-esbuild-plugins.mjs); only the banner imports.
    expect(webhookCode).toMatch(/\w+\("@aws-sdk\/client-dynamodb"\)/);
    expect(webhookCode).toMatch(/\w+\("node:http"\)/);
    for (const code of [
      webhookCode,
      ...[packaged.worker, packaged.reminder].map((zip) => zip.entries[0]!.data.toString('utf8')),
    ])
      expect(code).not.toMatch(/(from|import\()\s*"(@aws-sdk\/|node:)/);
    expect(inputs.filter((input) => input.includes('node_modules/@aws-sdk/'))).toEqual([]);
  });

  it('bundle sizes are within their targets', () => {
    for (const name of ['webhook', 'worker'] as const) {
      expect(packaged[name].bundleBytes).toBeLessThanOrEqual(TARGETS[name]!.bytes);
    }
  });
});

describe('deploy-time parameters (`osls print --param`, offline)', () => {
  it('reserve the webhook’s concurrency, subscribe an email to the alarms, name the table, turn tracing off', async () => {
    const { stdout } = await promisify(execFile)(
      'npx',
      [
        'osls',
        'print',
        '--format',
        'json',
        '--param=webhookReservedConcurrency=5',
        '--param=alarmEmail=ops@example.com',
        '--param=tableName=kaiwa-prod-2',
        '--param=tracing=false',
      ],
      {
        cwd: ROOT,
        timeout: 120_000,
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: 'offline',
          AWS_SECRET_ACCESS_KEY: 'offline',
          AWS_REGION: 'ap-northeast-1',
        },
      },
    );
    const printed = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      provider: { tracing: { lambda: unknown } };
      functions: { webhook: { reservedConcurrency?: number } };
      resources: { Resources: Record<string, Resource>; Conditions: Record<string, unknown> };
    };
    expect(printed.functions.webhook.reservedConcurrency).toBe(5);
    expect(printed.provider.tracing.lambda).toBe(false);
    expect(printed.resources.Conditions.HasAlarmEmail).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['ops@example.com', ''] }],
    });
    expect(printed.resources.Resources.AlarmEmailSubscription!.Properties.Endpoint).toBe('ops@example.com');
    expect(printed.resources.Resources.ConversationTable!.Properties.TableName).toBe('kaiwa-prod-2');
  }, 120_000);
});

describe.skipIf(!dynamoDbLocalRequired())(
  'the packaged bundles under Node.js 22, against DynamoDB Local',
  () => {
    let local: DynamoDbLocal;
    let line: Awaited<ReturnType<typeof startFakeLine>>;
    let ssm: Awaited<ReturnType<typeof startFakeSsm>>;
    let gemini: FakeGeminiServer;
    let table: string;
    let env: Record<string, string>;
    // Each bundle reaches DynamoDB as its role allows, no more (DynamoDB Local checks nothing).
    let iam: Record<'Webhook' | 'Worker' | 'Reminder', IamProxy>;
    const asRole = (role: keyof typeof iam, base: Record<string, string>) => ({
      ...base,
      DYNAMODB_ENDPOINT: iam[role].endpoint,
    });

    beforeAll(async () => {
      [local, line, gemini] = await Promise.all([
        startDynamoDbLocal(),
        startFakeLine(),
        startEchoGemini(() => 0),
      ]);
      ssm = await startFakeSsm({
        '/kaiwa/test/line-channel-secret': line.emulator.channelSecret,
        '/kaiwa/test/line-channel-access-token': line.emulator.channelAccessToken,
        '/kaiwa/test/gemini-api-key': 'test-key', // the key the fake Gemini takes
      });
      table = await local.createTable();
      const proxyFor = (role: string) =>
        startIamProxy({ upstream: local.endpoint, allowed: actionsOf(role) });
      iam = {
        Webhook: await proxyFor('WebhookRole'),
        Worker: await proxyFor('WorkerRole'),
        Reminder: await proxyFor('ReminderRole'),
      };
      // DynamoDB Local's first transactions are slow (its JVM warms up): not the webhook's 1.5 s to judge.
      const warmUp = new DynamoDbSourceStore({ client: local.client, tableName: await local.createTable() });
      for (let index = 0; index < 5; index++) {
        await warmUp.accept({
          eventId: `warm-up-${index}`,
          source: { kind: 'user', id: 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9' },
          sender: { userId: 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9' },
          text: 'warm-up',
          messageId: String(index),
          timestamp: Date.now(),
        });
      }
      env = {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'kaiwalocal',
        AWS_SECRET_ACCESS_KEY: 'kaiwalocal',
        AWS_ENDPOINT_URL_SSM: ssm.url,
        DYNAMODB_ENDPOINT: local.endpoint,
        DYNAMODB_TABLE: table,
        STORE: 'dynamodb',
        LOG_LEVEL: 'silent',
        // Turns must fit in the invocation's 60 s (the template's are 120 s in 150 s).
        KAIWA_TURN_DEADLINE_MS: '20000',
        // The cold webhook reads SSM and stores inside this budget; on a loaded test machine a fresh
        // process needs more than production's 1.5 s: the largest the configuration allows. The
        // budget itself is tested in webhook-handler.test.ts; this test is about the bundles running.
        KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS: '1900',
        KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/test/line-channel-secret',
        KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/test/line-channel-access-token',
        LINE_API_BASE_URL: line.url,
        LINE_DATA_API_BASE_URL: line.url,
        KAIWA_REMINDER_SCHEDULE_GROUP: 'reminders',
        KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
        KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:reminder',
      };
    }, 60_000);
    afterAll(async () => {
      await Promise.all([
        local?.stop(),
        line?.close(),
        ssm?.close(),
        gemini?.close(),
        ...Object.values(iam ?? {}).map((proxy) => proxy.close()),
      ]);
    });

    /** The packaged worker, given these stream records as the Pipe delivers them from the FIFO queue. */
    async function runWorker(records: Parameters<typeof inboxInserts>[0], workerEnv: Record<string, string>) {
      return runBundle(packaged.worker.bundlePath, {
        env: asRole('Worker', workerEnv),
        event: {
          Records: deliveredRecords(
            records,
            await pipeFromTemplate(),
            'arn:aws:sqs:us-east-1:123456789012:work.fifo',
          ),
        },
        remainingMs: 60_000,
      });
    }

    it("the worker's Gemini SDK, bundled with ws and web-streams-polyfill left out, answers through the Gemini API", async () => {
      const userId = 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2';
      const geminiEnv = {
        ...env,
        KAIWA_SSM_GEMINI_API_KEY: '/kaiwa/test/gemini-api-key',
        GEMINI_BASE_URL: gemini.baseUrl,
      };
      const reader = StreamReader.forLocal(local.endpoint, table);
      await reader.open();
      const body = JSON.stringify({
        destination: line.emulator.botUserId,
        events: [textEvent(userId, 's1m1 hello', { replyToken: line.emulator.issueReplyToken(userId) })],
      });
      await runBundle(packaged.webhook.bundlePath, {
        env: asRole('Webhook', geminiEnv),
        event: signedWebhookEvent(body, line.emulator.channelSecret),
      });
      const ofUser = (all: Parameters<typeof inboxInserts>[0]) =>
        inboxInserts(all).filter((record) => record.dynamodb?.Keys?.pk?.S === userId);
      const records = ofUser(await reader.readUntil((all) => ofUser(all).length >= 1));
      const worker = await runWorker(records, geminiEnv);
      reader.close();

      expect(worker).toMatchObject({ result: { batchItemFailures: [] } });
      expect(gemini.requests.length).toBeGreaterThanOrEqual(1);
      const replies = line.emulator
        .entries()
        .filter((entry) => entry.from === 'bot' && entry.chatId === userId);
      expect(replies.map((entry) => entry.text)).toEqual(['re: s1m1']);
    }, 90_000);

    it('webhook → stream → pipe → worker → reply, and a reminder into the inbox: each bundle run by Node.js 22', async () => {
      const userId = 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
      const reader = StreamReader.forLocal(local.endpoint, table);
      await reader.open();
      const body = JSON.stringify({
        destination: line.emulator.botUserId,
        events: [
          textEvent(userId, 'hello from node 22', { replyToken: line.emulator.issueReplyToken(userId) }),
        ],
      });

      const webhook = await runBundle(packaged.webhook.bundlePath, {
        env: asRole('Webhook', env),
        event: signedWebhookEvent(body, line.emulator.channelSecret),
      });
      expect(webhook).toMatchObject({
        node: expect.stringMatching(/^v22\./) as string,
        result: { statusCode: 200 },
      });

      const records = inboxInserts(await reader.readUntil((all) => inboxInserts(all).length >= 1));
      const worker = await runWorker(records, env);
      reader.close();
      expect(worker).toMatchObject({
        node: expect.stringMatching(/^v22\./) as string,
        result: { batchItemFailures: [] },
      });
      const replies = line.emulator
        .entries()
        .filter((entry) => entry.from === 'bot' && entry.chatId === userId);
      expect(replies.map((entry) => entry.text)).toEqual([expect.stringContaining('hello from node 22')]);

      const reminder = await runBundle(packaged.reminder.bundlePath, {
        env: asRole('Reminder', env),
        event: {
          kaiwa: 'reminder',
          reminder: {
            id: 'r1',
            source: { kind: 'user', id: userId },
            dueAt: Date.now(),
            text: 'drink water',
            createdAt: 0,
          },
        },
      });
      expect(reminder).toMatchObject({ result: { accepted: true } });
      const store = new DynamoDbSourceStore({ client: local.client, tableName: table });
      expect((await store.inbox(userId)).map((stored) => stored.item)).toMatchObject([
        { eventId: `reminder:${userId}:r1`, text: '[reminder due] drink water' },
      ]);
      // Secrets came from SSM, decrypted, at run time.
      expect(ssm.calls.every((call) => call.withDecryption)).toBe(true);
      expect(ssm.calls.flatMap((call) => call.names)).toContain('/kaiwa/test/line-channel-access-token');
      expect(Object.values(iam).flatMap((proxy) => proxy.denied)).toEqual([]);
    }, 90_000);

    // At the cap, accept counts messages into one overflow item, replaced while it is not
    // consumed: a transaction with a ConditionCheck, which the webhook's role must allow too.
    it('a full inbox: the webhook counts the messages beyond the cap into one overflow item', async () => {
      const userId = 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa4';
      const events = Array.from({ length: 12 }, (_, index) => textEvent(userId, `flood ${index}`));
      const answer = await runBundle(packaged.webhook.bundlePath, {
        env: asRole('Webhook', { ...env, KAIWA_MAX_INBOX: '10' }),
        event: signedWebhookEvent(
          JSON.stringify({ destination: line.emulator.botUserId, events }),
          line.emulator.channelSecret,
        ),
      });

      expect(answer).toMatchObject({ result: { statusCode: 200 } });
      const waiting = await new DynamoDbSourceStore({ client: local.client, tableName: table }).inbox(userId);
      expect(waiting).toHaveLength(11);
      expect(waiting.at(-1)?.item).toMatchObject({ overflow: { count: 2 } });
      expect(iam.Webhook.needed).toContain('dynamodb:ConditionCheckItem');
      expect(Object.values(iam).flatMap((proxy) => proxy.denied)).toEqual([]);
    }, 90_000);

    // A message and its unsend, both accepted before the worker runs: the webhook marks the
    // waiting message (a query and an update its role must allow), the worker answers nothing.
    it('a message taken back before the worker runs: the webhook marks it, no reply goes out', async () => {
      const userId = 'U0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa3';
      const reader = StreamReader.forLocal(local.endpoint, table);
      await reader.open();
      const message = textEvent(userId, 'oops', { replyToken: line.emulator.issueReplyToken(userId) });
      const unsend = {
        type: 'unsend' as const,
        mode: 'active' as const,
        timestamp: Date.now(),
        webhookEventId: `01JUNSEND${Date.now()}`,
        deliveryContext: { isRedelivery: false },
        source: { type: 'user' as const, userId },
        unsend: { messageId: message.message.id },
      };
      for (const event of [message, unsend]) {
        const body = JSON.stringify({ destination: line.emulator.botUserId, events: [event] });
        const answer = await runBundle(packaged.webhook.bundlePath, {
          env: asRole('Webhook', env),
          event: signedWebhookEvent(body, line.emulator.channelSecret),
        });
        expect(answer).toMatchObject({ result: { statusCode: 200 } });
      }
      const ofUser = (all: Parameters<typeof inboxInserts>[0]) =>
        inboxInserts(all).filter((record) => record.dynamodb?.Keys?.pk?.S === userId);
      const records = ofUser(await reader.readUntil((all) => ofUser(all).length >= 2));
      const worker = await runWorker(records, env);
      reader.close();

      expect(worker).toMatchObject({ result: { batchItemFailures: [] } });
      expect(
        line.emulator.entries().filter((entry) => entry.from === 'bot' && entry.chatId === userId),
      ).toEqual([]);
      expect(await new DynamoDbSourceStore({ client: local.client, tableName: table }).inbox(userId)).toEqual(
        [],
      );
      expect(iam.Webhook.needed).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem']));
      expect(Object.values(iam).flatMap((proxy) => proxy.denied)).toEqual([]);
    }, 90_000);
  },
);
