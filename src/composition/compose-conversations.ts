import type { InspectionEvent } from 'xstate';
import { ActorHost, type BackoffOptions } from '../actors/index.js';
import { sideEffectTimeoutMs, type KaiwaConfig } from '../config/index.js';
import { defaults } from '../defaults/index.js';
import { REPLY_TOOL_NAME, SKIP_TOOL_NAME, type Clock, type InboundMessage } from '../domain/index.js';
import { createLineChannel, type LineEndpoints } from '../line/line-channel.js';
import type { Logger } from '../logging/index.js';
import type { ModelPort } from '../model/index.js';
import type { SourceOwner, SourceStore } from '../persistence/index.js';
import { loadPersona, StepPrompt, SystemPrompt } from '../prompt/index.js';
import { createReminderTools, type ReminderScheduler } from '../reminders/index.js';
import {
  BackgroundWork,
  ToolRegistry,
  createCurrentTimeTool,
  createWeatherTool,
  replyTool,
  skipTool,
  ToolDefinitionError,
  type BackgroundLedger,
  type Tool,
  type ToolRegistryOptions,
} from '../tools/index.js';
import { createToolFinderTool, TOOL_FINDER_NAME } from '../tools/selection/index.js';

export interface ConversationParts {
  readonly config: KaiwaConfig;
  readonly store: SourceStore;
  readonly model: ModelPort;
  /** Where LINE's Messaging API is: the real channel, or the local emulator. */
  readonly line: LineEndpoints;
  /** Where `set_reminder` keeps reminders: timers locally, EventBridge Scheduler on AWS. */
  readonly reminders: ReminderScheduler;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Tools given by the caller; one replaces the built-in of the same name. */
  readonly tools?: readonly Tool[];
  /** Who the bot is, unless `KAIWA_PERSONA_FILE` says otherwise; default kaiwa's own. */
  readonly persona?: string;
  /** When the tools' schemas are compiled (see `ToolRegistryOptions`); default at registration. */
  readonly compileTools?: ToolRegistryOptions['compile'];
  /**
   * Where a tool's finished background work goes: the source's inbox — through the local host,
   * which starts its turn; by default the store's, which on Lambda its stream announces.
   */
  readonly acceptFinishedWork?: (message: InboundMessage) => Promise<unknown>;
  /** Where running background work is noted, for the next start to report what a crash left. */
  readonly backgroundLedger?: BackgroundLedger;
}

/** Per host: what differs between the local server and one Lambda invocation. */
export interface HostExtras {
  /** Replaces the store for this host. */
  readonly store?: SourceStore;
  readonly inspect?: (sourceId: string, event: InspectionEvent) => void;
  readonly turnDeadlineMs?: number;
  /** No turn starts that could not end by then (epoch ms): the Lambda worker's invocation. */
  readonly turnsUntil?: number;
  /** Count inbox attempts and set a message aside after this many (the Lambda worker). */
  readonly maxInboxAttempts?: number;
  readonly backoff?: BackoffOptions;
  readonly logger?: Logger;
  /** This host's owner id (the Lambda worker: one per invocation). */
  readonly ownerId?: string;
  /** Whether a source's recorded owner is gone (on Lambda: only when its lease ran out). */
  readonly isOwnerGone?: (owner: SourceOwner) => boolean;
}

export interface Conversations {
  readonly tools: ToolRegistry;
  /** The tools' work still running after their calls answered: a host waits for it before it stops. */
  readonly background: BackgroundWork;
  readonly systemPrompt: SystemPrompt;
  readonly line: ReturnType<typeof createLineChannel>;
  /** An actor host wired to all of the above; the local server keeps one, the Lambda worker one per drain. */
  createHost(extras?: HostExtras): ActorHost;
}

/** The tools the conversation machine relies on by name: a bot's own tool may not replace them. */
const KAIWA_OWN_TOOLS: ReadonlySet<string> = new Set([REPLY_TOOL_NAME, SKIP_TOOL_NAME, TOOL_FINDER_NAME]);

/**
 * Refuses a bot's tool named like one of kaiwa's own (`reply`, `skip`, `find_tools`): the machine
 * delivers `reply`'s message and ends a turn on `skip`, so a tool of another shape under that name
 * would break every turn rather than fail at the start. Other built-ins may be replaced.
 */
export function checkOwnTools(tools: readonly Tool[]): void {
  for (const tool of tools) {
    if (KAIWA_OWN_TOOLS.has(tool.name))
      throw new ToolDefinitionError(
        tool.name,
        "is kaiwa's own, which the conversation relies on: give yours another name",
      );
  }
}

/**
 * What the local runtime and the Lambda worker share: the tool registry (built-ins, reminder
 * tools, the caller's tools), the system prompt, the LINE channel and the actor host's wiring.
 * @example
 * const conversations = await composeConversations({ config, store, model, line, reminders, clock, logger });
 * const host = conversations.createHost({ inspect });
 */
export async function composeConversations(parts: ConversationParts): Promise<Conversations> {
  const { config, clock, logger } = parts;
  const background = new BackgroundWork({
    deliver: (message) => (parts.acceptFinishedWork ?? ((item) => parts.store.accept(item)))(message),
    ...(parts.backgroundLedger && { ledger: parts.backgroundLedger }),
    timeoutMs: defaults.tools.backgroundTimeoutMs,
    maxBytes: defaults.tools.maxResultBytes,
    clock,
    logger,
  });
  const tools = new ToolRegistry({
    logger,
    background,
    defaultTimeoutMs: config.toolTimeoutMs,
    ...(parts.compileTools && { compile: parts.compileTools }),
  });
  const builtInTools: Tool[] = [
    replyTool,
    skipTool,
    createWeatherTool({ baseUrl: config.weatherBaseUrl }),
    createCurrentTimeTool({ defaultTimeZone: config.timeZone }),
    ...createReminderTools({ scheduler: parts.reminders, defaultTimeZone: config.timeZone }),
    // The meta-tool: with it, per-step tool selection never leaves a tool out of reach.
    createToolFinderTool({ registry: tools }),
  ];
  checkOwnTools(parts.tools ?? []);
  const given = new Set((parts.tools ?? []).map((tool) => tool.name));
  for (const tool of [...builtInTools.filter((tool) => !given.has(tool.name)), ...(parts.tools ?? [])]) {
    tools.register(tool);
  }
  const persona = await loadPersona(config.personaFile, parts.persona);
  const systemPrompt = new SystemPrompt(tools, persona);
  // Per-step tool selection: a stable prefix, then the tools that fit each step (docs/design-notes.md).
  const stepPrompt = new StepPrompt(tools, persona);
  const line = createLineChannel(parts.line, config, clock, logger);

  return {
    tools,
    background,
    systemPrompt,
    line,
    createHost: (extras = {}) =>
      new ActorHost({
        store: extras.store ?? parts.store,
        services: {
          model: parts.model,
          tools,
          delivery: line.delivery,
          media: line.media,
          systemInstruction: () => systemPrompt.text(),
          stepPrompt,
          clock,
          logger: extras.logger ?? logger,
        },
        settings: config.conversation,
        idleEvictionMs: config.idleEvictionMs,
        maxLiveSources: config.maxLiveSources,
        maxWorkingSources: config.maxWorkingSources,
        leaseMs: config.leaseMs,
        sideEffectTimeoutMs: sideEffectTimeoutMs(config),
        enrich: line.directory.enrich,
        turnActivity: line.loading,
        forgetPolicy: config.lineBehaviour.forgetPolicy,
        // An unfollowed or left source keeps no reminders, and hears of no background work.
        onForget: (source) => {
          background.abandon(source.id);
          return cancelReminders(parts.reminders, source.id);
        },
        turnDeadlineMs: extras.turnDeadlineMs ?? config.turnDeadlineMs,
        logger: extras.logger ?? logger,
        clock,
        ...(extras.backoff && { backoff: extras.backoff }),
        ...(extras.inspect && { inspect: extras.inspect }),
        ...(extras.ownerId && { ownerId: extras.ownerId }),
        ...(extras.turnsUntil !== undefined && { turnsUntil: extras.turnsUntil }),
        ...(extras.maxInboxAttempts !== undefined && { maxInboxAttempts: extras.maxInboxAttempts }),
        ...(extras.isOwnerGone && { isOwnerGone: extras.isOwnerGone }),
      }),
  };
}

async function cancelReminders(reminders: ReminderScheduler, sourceId: string): Promise<void> {
  for (const reminder of await reminders.list(sourceId)) await reminders.cancel(sourceId, reminder.id);
}
