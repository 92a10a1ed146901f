// The dashboard's side of the snapshot scanner (snapshotScan.ts; Web APIs only). The scanner
// reads the line's bytes and decodes only the strings it has to, as the ordinary path decodes
// the line (strict UTF-8: bad bytes throw, and the line goes the ordinary way, which words the
// error). The whole line is not decoded: a browser's UTF-8 decoder was a third of a dropped
// file's time when every line was made a string for the scanner (the bare read it is measured
// against still pays it). The ordinary path here hands the engine the text, so `parsed` is false.
import type { ScanViewOf } from './lineRecords.ts';

// ignoreBOM: a value that starts with U+FEFF keeps it, as it does in the line the ordinary
// path decodes whole (whose decoder drops a BOM only at the line's start: such a line is
// left to it)
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const utf8 = (at: Uint8Array, a: number, b: number): string => (a === b ? '' : strict.decode(at.subarray(a, b)));

export const browserScanView: ScanViewOf = (bytes, start, end) =>
  start === end || (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf)
    ? null
    : { bytes, start, end, parsed: false, utf8 };
