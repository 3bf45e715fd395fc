import type { Tool } from '../tools/index.js';

/** A bot made with kaiwa: who it is, and what it can do beyond the built-in tools. */
export interface Bot {
  /**
   * Who the bot is: the start of its system prompt. Unset: kaiwa's own (`DEFAULT_PERSONA`).
   * `KAIWA_PERSONA_FILE`, when set, wins (to try another persona without a change to the code).
   */
  readonly persona?: string;
  /**
   * Its own tools, offered with the built-in ones. One named like a built-in replaces it, except
   * `reply`, `skip` and `find_tools`, which the conversation relies on (the start stops).
   */
  readonly tools: readonly Tool[];
}

/**
 * The bot that `npm start`, `npm run chat` and the Lambda worker run: make it yours here — a
 * persona and tools written with `defineTool` (README, "Your bot"). Being code, both go into
 * the Lambda bundle with the rest of kaiwa.
 */
export const bot: Bot = {
  tools: [],
};
