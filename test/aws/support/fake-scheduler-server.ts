import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A schedule as the fake holds it: the request body of CreateSchedule, plus its name. */
export interface StoredSchedule {
  readonly Name: string;
  readonly GroupName: string;
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly ActionAfterCompletion?: string;
  readonly FlexibleTimeWindow: { Mode: string };
  readonly Target: { Arn: string; RoleArn: string; Input?: string; DeadLetterConfig?: { Arn: string } };
  readonly CreationDate: number;
}

const NAME = /^[0-9a-zA-Z-_.]{1,64}$/;
const AT = /^at\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\)$/;

/**
 * A local HTTP server speaking EventBridge Scheduler's REST-JSON API the way the real
 * `@aws-sdk/client-scheduler` calls it (CreateSchedule, GetSchedule, DeleteSchedule,
 * ListSchedules with paging), with the service's rules: name pattern, group must exist,
 * a name taken in a group is a ConflictException, a missing one a ResourceNotFoundException.
 * `fire(name)` plays the scheduler's part at the due time: it hands back the target's input
 * and, for `ActionAfterCompletion: DELETE`, deletes the schedule.
 */
export async function startFakeScheduler(options: { groups: readonly string[]; pageSize?: number }) {
  const schedules = new Map<string, StoredSchedule>(); // key: group/name
  const requests: { method: string; path: string; query: Record<string, string> }[] = [];
  let failCreates = 0;
  const pageSize = options.pageSize ?? 2; // small, so tests exercise NextToken

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      send(response, 500, { Message: String(error) }, 'InternalServerException');
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams);
    requests.push({ method: request.method ?? '', path: url.pathname, query });
    const body = await readBody(request);
    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) {
      return send(response, 403, { Message: 'missing signature' }, 'AccessDeniedException');
    }
    if (request.method === 'POST' && match) {
      if (failCreates > 0) {
        failCreates--;
        return send(response, 500, { Message: 'scripted failure' }, 'InternalServerException');
      }
      const name = decodeURIComponent(match[1]!);
      const input = JSON.parse(body) as Omit<StoredSchedule, 'Name' | 'CreationDate'>;
      const group = input.GroupName ?? 'default';
      const problem = validateCreate(name, input, options.groups);
      if (problem) return send(response, 400, { Message: problem }, 'ValidationException');
      if (schedules.has(`${group}/${name}`)) {
        return send(response, 409, { Message: `Schedule ${name} already exists.` }, 'ConflictException');
      }
      schedules.set(`${group}/${name}`, {
        ...input,
        GroupName: group,
        Name: name,
        CreationDate: Date.now() / 1000,
      });
      return send(response, 200, { ScheduleArn: arnOf(group, name) });
    }
    if ((request.method === 'GET' || request.method === 'DELETE') && match) {
      const name = decodeURIComponent(match[1]!);
      const key = `${query.groupName ?? 'default'}/${name}`;
      const schedule = schedules.get(key);
      if (!schedule) {
        return send(
          response,
          404,
          { Message: `Schedule ${name} does not exist.` },
          'ResourceNotFoundException',
        );
      }
      if (request.method === 'DELETE') {
        schedules.delete(key);
        return send(response, 200, {});
      }
      return send(response, 200, { ...schedule, Arn: arnOf(schedule.GroupName, name), State: 'ENABLED' });
    }
    if (request.method === 'GET' && url.pathname === '/schedules') {
      const matching = [...schedules.values()]
        .filter((schedule) => !query.ScheduleGroup || schedule.GroupName === query.ScheduleGroup)
        .filter((schedule) => !query.NamePrefix || schedule.Name.startsWith(query.NamePrefix))
        .sort((a, b) => a.Name.localeCompare(b.Name));
      const start = query.NextToken ? Number(query.NextToken) : 0;
      const page = matching.slice(start, start + pageSize);
      const next = start + pageSize < matching.length ? String(start + pageSize) : undefined;
      return send(response, 200, {
        Schedules: page.map((schedule) => ({
          Arn: arnOf(schedule.GroupName, schedule.Name),
          Name: schedule.Name,
          GroupName: schedule.GroupName,
          State: 'ENABLED',
          CreationDate: schedule.CreationDate,
          Target: { Arn: schedule.Target.Arn },
        })),
        ...(next && { NextToken: next }),
      });
    }
    return send(
      response,
      404,
      { Message: `no route ${request.method} ${url.pathname}` },
      'UnknownOperationException',
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Every schedule still waiting, in a group (all groups when omitted). */
    schedules: (group?: string) =>
      [...schedules.values()].filter((schedule) => !group || schedule.GroupName === group),
    /** Forgets every schedule and recorded request (between tests). */
    reset: () => {
      schedules.clear();
      requests.length = 0;
      failCreates = 0;
    },
    /** The next `times` CreateSchedule calls answer 500. */
    failCreates: (times: number) => {
      failCreates = times;
    },
    /**
     * The scheduler at the due time (`at`, for a recurring schedule's occurrence): the target's
     * input, its context attributes replaced as the service does; deleted when the schedule asks.
     */
    fire(schedule: StoredSchedule, at = Date.now()): unknown {
      if (schedule.ActionAfterCompletion === 'DELETE')
        schedules.delete(`${schedule.GroupName}/${schedule.Name}`);
      const input = (schedule.Target.Input ?? '{}')
        .replaceAll('<aws.scheduler.scheduled-time>', new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'))
        .replaceAll('<aws.scheduler.schedule-arn>', arnOf(schedule.GroupName, schedule.Name));
      return JSON.parse(input);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function validateCreate(
  name: string,
  input: Partial<StoredSchedule>,
  groups: readonly string[],
): string | undefined {
  if (!NAME.test(name)) return `Name ${name} must match [0-9a-zA-Z-_.]{1,64}`;
  if (!groups.includes(input.GroupName ?? 'default'))
    return `Schedule group ${input.GroupName} does not exist.`;
  if (
    !input.ScheduleExpression ||
    !(AT.test(input.ScheduleExpression) || /^(rate|cron)\(/.test(input.ScheduleExpression))
  ) {
    return `Invalid Schedule Expression ${input.ScheduleExpression}.`;
  }
  if (!input.FlexibleTimeWindow?.Mode) return 'FlexibleTimeWindow is required.';
  if (!input.Target?.Arn || !input.Target.RoleArn) return 'Target.Arn and Target.RoleArn are required.';
  if ((input.Target.Input?.length ?? 0) > 8192) return 'Target.Input must be at most 8192 characters.';
  if (input.ActionAfterCompletion && !['NONE', 'DELETE'].includes(input.ActionAfterCompletion)) {
    return `Invalid ActionAfterCompletion ${input.ActionAfterCompletion}.`;
  }
  return undefined;
}

function arnOf(group: string, name: string): string {
  return `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}`;
}

function send(response: ServerResponse, status: number, body: unknown, errorType?: string) {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(errorType && { 'x-amzn-errortype': errorType }),
  });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
