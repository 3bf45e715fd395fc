export { LineMedia } from './line-media.js';
export { checkableImageTypes, looksLike, voiceMessageTypes } from './media-signature.js';
export type { LineMediaOptions } from './line-media.js';
export { DownloadSlots } from './download-slots.js';
export { MediaCache } from './media-cache.js';
export type { MediaCacheOptions } from './media-cache.js';
export { downloadContent } from './content-download.js';
export type { ContentDownloadOptions, DownloadOutcome, RefusalReason } from './content-download.js';
