export { ActorHost } from './actor-host.js';
export type { MessageEnricher, TurnActivityListener } from './source-slot.js';
export type { ActorHostOptions } from './actor-host.js';
export { backoffDelay, defaultBackoff } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
