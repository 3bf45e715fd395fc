import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config/config-error.js';

/** The variable that names a persona file; errors name it so the fix is obvious. */
export const PERSONA_FILE_VARIABLE = 'KAIWA_PERSONA_FILE';

/** Who the bot is when no persona file is configured. */
export const DEFAULT_PERSONA =
  'You are kaiwa, a friendly assistant in LINE chats. Answer briefly and warmly, in the language the user writes in.';

/**
 * Reads the persona (the first part of the system prompt) from a UTF-8 text file, or
 * returns the bot's own (`fallback`, {@link DEFAULT_PERSONA} unless given) when no path is
 * configured. A file that is missing, unreadable or empty fails start-up with a `ConfigError`
 * naming `KAIWA_PERSONA_FILE`, and an empty `fallback` fails it too, rather than letting the bot
 * run with a persona nobody wrote.
 * @example
 * const persona = await loadPersona(config.personaFile, bot.persona);
 */
export async function loadPersona(path: string | undefined, fallback = DEFAULT_PERSONA): Promise<string> {
  if (path === undefined) {
    const persona = fallback.trim();
    if (persona === '')
      throw new TypeError("the bot's persona is empty: give it one, or leave it out (src/bot)");
    return persona;
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(PERSONA_FILE_VARIABLE, `cannot be read: "${path}" ${describeReadError(error)}`);
  }
  const persona = text.replace(/^\uFEFF/, '').trim();
  if (persona === '') throw new ConfigError(PERSONA_FILE_VARIABLE, `names an empty file: "${path}"`);
  return persona;
}

function describeReadError(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'does not exist';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'is not readable (permission denied)';
    default:
      return `could not be read (${(error as Error).message})`;
  }
}
