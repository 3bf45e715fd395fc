export { bot, type Bot } from './bot.js';
