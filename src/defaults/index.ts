export { defaults } from './defaults.js';
