export { ActorHost } from './actor-host.js';
export type { AcceptResult, ActorHostOptions } from './actor-host.js';
export { backoffDelay, defaultBackoff } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
