export { KaiwaError } from './kaiwa-error.js';
