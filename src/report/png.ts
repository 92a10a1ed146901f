// PNG chunks for stamped images: the stamp's JSON rides in an `iTXt` chunk (keyword
// `context-health`) so that an image found in a wiki can be traced back to its session,
// turns, thresholds and source. DOM-free and Node-free: the dashboard and the CLI write
// the same bytes, and tests read them back.

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
/** the keyword of the stamp's iTXt chunk */
export const STAMP_KEYWORD = 'context-health';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO 3309, the one PNG chunks carry) of bytes[start, end). */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface PngChunk {
  type: string;
  /** offset of the chunk (its length field) in the file */
  offset: number;
  /** offset just past its CRC */
  end: number;
  data: Uint8Array;
}

/** The chunks of a PNG file, in order. Throws naming the offset when the bytes are not a well-formed PNG. */
export function pngChunks(png: Uint8Array): PngChunk[] {
  if (png.length < 8 || PNG_SIGNATURE.some((b, i) => png[i] !== b)) throw new Error('not a PNG file: the 8-byte signature is missing');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < png.length) {
    if (at + 12 > png.length) throw new Error(`PNG chunk at byte ${at} is cut short`);
    const length = view.getUint32(at);
    const end = at + 12 + length;
    if (end > png.length) throw new Error(`PNG chunk at byte ${at} claims ${length} bytes, past the end of the file`);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    const crc = view.getUint32(end - 4);
    if (crc32(png, at + 4, end - 4) !== crc) throw new Error(`PNG chunk ${type} at byte ${at} has a wrong CRC`);
    chunks.push({ type, offset: at, end, data: png.subarray(at + 8, end - 4) });
    at = end;
    if (type === 'IEND') break;
  }
  if (chunks[0]?.type !== 'IHDR') throw new Error('PNG file does not start with IHDR');
  return chunks;
}

/** Pixel size from IHDR. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const ihdr = pngChunks(png)[0]!;
  const v = new DataView(ihdr.data.buffer, ihdr.data.byteOffset, ihdr.data.byteLength);
  return { width: v.getUint32(0), height: v.getUint32(4) };
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

/**
 * An uncompressed iTXt chunk (PNG spec 11.3.4.5): keyword, NUL, compression flag 0,
 * method 0, empty language tag, NUL, empty translated keyword, NUL, UTF-8 text.
 */
export function iTxtChunk(keyword: string, text: string): Uint8Array {
  if (!/^[\x20-\x7e]{1,79}$/.test(keyword) || keyword.startsWith(' ') || keyword.endsWith(' ')) {
    throw new Error(`iTXt keyword must be 1–79 printable Latin-1 characters, got ${JSON.stringify(keyword)}`);
  }
  const key = new TextEncoder().encode(keyword);
  const body = new TextEncoder().encode(text);
  const data = new Uint8Array(key.length + 5 + body.length);
  data.set(key, 0);
  // key NUL, flag 0, method 0, language "" NUL, translated "" NUL: five bytes, all zero
  data.set(body, key.length + 5);
  return chunk('iTXt', data);
}

/** The PNG with one iTXt chunk `keyword` = `text` right after IHDR (any earlier one of that keyword removed). */
export function withITxt(png: Uint8Array, keyword: string, text: string): Uint8Array {
  const chunks = pngChunks(png);
  const add = iTxtChunk(keyword, text);
  const parts: Uint8Array[] = [png.subarray(0, 8)];
  for (const c of chunks) {
    if (c.type === 'iTXt' && iTxtOf(c.data)?.keyword === keyword) continue;
    parts.push(png.subarray(c.offset, c.end));
    if (c.type === 'IHDR') parts.push(add);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function iTxtOf(data: Uint8Array): { keyword: string; text: string | null } | null {
  const nul = data.indexOf(0);
  if (nul < 1) return null;
  const keyword = new TextDecoder('latin1').decode(data.subarray(0, nul));
  const compressed = data[nul + 1];
  const lang = data.indexOf(0, nul + 3);
  if (lang < 0) return null;
  const translated = data.indexOf(0, lang + 1);
  if (translated < 0) return null;
  // a compressed text would need inflate; the stamp is never written compressed
  if (compressed !== 0) return { keyword, text: null };
  return { keyword, text: new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(translated + 1)) };
}

/** The text of the first uncompressed iTXt chunk named `keyword`, or null. */
export function readITxt(png: Uint8Array, keyword: string = STAMP_KEYWORD): string | null {
  for (const c of pngChunks(png)) {
    if (c.type !== 'iTXt') continue;
    const t = iTxtOf(c.data);
    if (t !== null && t.keyword === keyword && t.text !== null) return t.text;
  }
  return null;
}
