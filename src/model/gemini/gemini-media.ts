import type { HistoryEntry } from '../../domain/index.js';
import type { MediaPart } from '../model-port.js';
import type { GeminiBackend } from './gemini-backend.js';

// The inline types each backend documents (docs/model.md, "Media"), with the names content
// servers also use for them. Gemini answers 400 for anything else, so the model gets a note.
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/png': 'image/png',
  'image/webp': 'image/webp',
  'image/heic': 'image/heic',
  'image/heif': 'image/heif',
};
/** ai.google.dev "Audio understanding": WAV, MP3, AIFF, AAC, OGG Vorbis, FLAC. */
const DEVELOPER_API_AUDIO_TYPES: Readonly<Record<string, string>> = {
  'audio/wav': 'audio/wav',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/mp3': 'audio/mp3',
  'audio/mpeg': 'audio/mp3',
  'audio/aiff': 'audio/aiff',
  'audio/x-aiff': 'audio/aiff',
  'audio/aac': 'audio/aac',
  'audio/ogg': 'audio/ogg',
  'audio/flac': 'audio/flac',
  'audio/x-flac': 'audio/flac',
};
/** Vertex AI takes MP4 audio too: LINE's voice messages are m4a (`audio/x-m4a`). */
const VERTEX_AUDIO_TYPES: Readonly<Record<string, string>> = {
  ...DEVELOPER_API_AUDIO_TYPES,
  'audio/mpeg': 'audio/mpeg',
  'audio/x-aac': 'audio/x-aac',
  'audio/mp4': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-m4a': 'audio/mp4',
  'audio/webm': 'audio/webm',
  'audio/opus': 'audio/opus',
};

/** Media ready to send, and a note per user entry (event id) for what the model does not get. */
export interface PreparedMedia {
  readonly media: readonly MediaPart[];
  readonly notes: ReadonlyMap<string, string>;
  /** For the logs: how many were left out, by why. */
  readonly leftOut: { readonly unsupportedType: number; readonly overLimit: number };
}

/**
 * Keeps the current turn's media Gemini takes, under its documented type names, and within
 * `maxInlineBytes` (base64, as sent) for the whole request: beyond it the oldest are left out,
 * so the message being answered keeps its media. Each medium left out gets a note in its own
 * user turn, so the model knows there was a picture or a voice message it did not get.
 */
export function prepareMedia(
  history: readonly HistoryEntry[],
  media: readonly MediaPart[],
  options: { readonly backend: GeminiBackend; readonly maxInlineBytes: number },
): PreparedMedia {
  const notes = new Map<string, string>();
  const leftOut = { unsupportedType: 0, overLimit: 0 };
  const audioTypes = options.backend === 'developer-api' ? DEVELOPER_API_AUDIO_TYPES : VERTEX_AUDIO_TYPES;
  const accepted: MediaPart[] = [];
  for (const part of media) {
    const type = (part.kind === 'image' ? IMAGE_TYPES : audioTypes)[part.mimeType.toLowerCase()];
    if (type) {
      accepted.push({ ...part, mimeType: type });
    } else {
      leftOut.unsupportedType++;
      notes.set(
        part.eventId,
        part.kind === 'image'
          ? `(not shown to you: ${part.mimeType} is not a type you can see)`
          : `(not heard by you: ${part.mimeType} is not a type you can hear)`,
      );
    }
  }

  const position = new Map(
    history.flatMap((entry, index) => (entry.role === 'user' ? [[entry.eventId, index] as const] : [])),
  );
  const oldestFirst = [...accepted].sort(
    (a, b) => (position.get(a.eventId) ?? -1) - (position.get(b.eventId) ?? -1),
  );
  let bytes = accepted.reduce((total, part) => total + part.data.length, 0);
  const dropped = new Set<MediaPart>();
  for (const part of oldestFirst) {
    if (bytes <= options.maxInlineBytes) break;
    dropped.add(part);
    bytes -= part.data.length;
    leftOut.overLimit++;
    notes.set(
      part.eventId,
      part.kind === 'image'
        ? "(not shown to you: the request's media limit was reached)"
        : "(not heard by you: the request's media limit was reached)",
    );
  }
  return { media: accepted.filter((part) => !dropped.has(part)), notes, leftOut };
}
