import type { InspectionEvent } from 'xstate';
import type { Logger } from '../logging/index.js';
import type { Redactor } from './redaction.js';

/** The package is optional: it is not a dependency, and only loaded when the flag asks for it. */
const STATELY_PACKAGE = '@statelyai/inspect';

type InspectObserver = ((event: InspectionEvent) => void) | { next?: (event: InspectionEvent) => void };
interface StatelyInspectModule {
  createSkyInspector?: (options?: { onerror?: (error: Error) => void }) => { inspect: InspectObserver };
}

export interface StatelyInspectorOptions {
  readonly logger: Logger;
  readonly redact: Redactor;
  /** How the package is loaded; tests pass a fake. */
  readonly importModule?: (name: string) => Promise<unknown>;
}

/**
 * `KAIWA_STATELY_INSPECT=true`: streams every conversation actor to Stately's hosted inspector
 * (`createSkyInspector` of `@statelyai/inspect`, which prints a link to open). Needs the internet
 * and sends states and (redacted) contexts to Stately, hence opt-in. Without the package it logs
 * how to install it and returns nothing: kaiwa runs on.
 */
export async function connectStatelyInspector(
  options: StatelyInspectorOptions,
): Promise<((event: InspectionEvent) => void) | undefined> {
  const importModule = options.importModule ?? ((name: string) => import(name) as Promise<unknown>);
  let module: StatelyInspectModule;
  try {
    module = (await importModule(STATELY_PACKAGE)) as StatelyInspectModule;
  } catch {
    options.logger.warn(
      `KAIWA_STATELY_INSPECT is set but ${STATELY_PACKAGE} could not be loaded: npm install ${STATELY_PACKAGE}`,
    );
    return undefined;
  }
  if (typeof module.createSkyInspector !== 'function') {
    options.logger.warn(
      `${STATELY_PACKAGE} has no createSkyInspector; the Stately inspector is not connected`,
    );
    return undefined;
  }
  const { inspect } = module.createSkyInspector({
    onerror: (error) => options.logger.warn('Stately inspector error', { error }),
  });
  const forward = typeof inspect === 'function' ? inspect : inspect.next?.bind(inspect);
  if (!forward) return undefined;
  options.logger.info('connected to the Stately inspector (conversations leave this machine, redacted)');
  return (event) => forward(redactedEvent(event, options.redact));
}

/** The event and snapshot payloads are copied through the redactor; actor refs stay as they are. */
function redactedEvent(event: InspectionEvent, redact: Redactor): InspectionEvent {
  const copy = { ...event } as InspectionEvent & { event?: unknown; snapshot?: Record<string, unknown> };
  if ('event' in event) copy.event = redact(event.event);
  if ('snapshot' in event) {
    const snapshot = event.snapshot as unknown as Record<string, unknown>;
    copy.snapshot = {
      ...snapshot,
      value: snapshot.value,
      status: snapshot.status,
      context: redact(snapshot.context),
      ...('output' in snapshot && { output: redact(snapshot.output) }),
    };
  }
  return copy;
}
