/**
 * The first bytes each image type starts with. A `content-type` is the server's word; the bytes
 * are the file: an HTML page or an SVG sent as `image/png` is refused all the same.
 */
const signatures: Record<string, (bytes: Buffer) => boolean> = {
  'image/jpeg': (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]),
  'image/png': (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/gif': (bytes) =>
    bytes
      .subarray(0, 6)
      .toString('latin1')
      .match(/^GIF8[79]a$/) !== null,
  'image/webp': (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
  // ISO base media files: `ftyp` at offset 4, then a brand of the HEIF family.
  'image/heic': (bytes) => isHeif(bytes),
  'image/heif': (bytes) => isHeif(bytes),
  // Voice messages: LINE serves m4a, an MP4 container (`ftyp` at offset 4) under any of these names.
  'audio/x-m4a': (bytes) => isMp4(bytes),
  'audio/m4a': (bytes) => isMp4(bytes),
  'audio/mp4': (bytes) => isMp4(bytes),
  'audio/aac': (bytes) => isMp4(bytes),
};

/** Whether `bytes` look like media of `mimeType`; unknown types never do. */
export function looksLike(mimeType: string, bytes: Buffer): boolean {
  return signatures[mimeType]?.(bytes) ?? false;
}

/** Image types whose bytes {@link looksLike} can check. */
export const checkableImageTypes: readonly string[] = Object.keys(signatures).filter((type) =>
  type.startsWith('image/'),
);

/** The names an m4a voice message is served under; all are given to the model as `audio/mp4`. */
export const voiceMessageTypes: readonly string[] = ['audio/x-m4a', 'audio/m4a', 'audio/mp4', 'audio/aac'];

function startsWith(bytes: Buffer, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

function isMp4(bytes: Buffer): boolean {
  return bytes.subarray(4, 8).toString('latin1') === 'ftyp';
}

function isHeif(bytes: Buffer): boolean {
  return (
    bytes.subarray(4, 8).toString('latin1') === 'ftyp' &&
    /^(heic|heix|hevc|heim|heis|hevm|hevs|mif1|msf1)$/.test(bytes.subarray(8, 12).toString('latin1'))
  );
}
