// The dashboard's side of the snapshot scanner (snapshotScan.ts; Web APIs only): a line shown to
// it as one char per byte. A browser's 'latin1' decoder is windows-1252 (WHATWG Encoding),
// which still gives one char per byte, leaves ASCII (all of JSON's structure) as it is, and
// gives different bytes different chars: all the scanner needs (it compares raw text and
// reads structure; the values it keeps it decodes from the bytes as UTF-8).
//
// The ordinary path here decodes a line as strict UTF-8 and hands the engine the text, so
// `parsed` is false. No pass over the line checks its UTF-8: a string the scanner keeps is
// either decoded here with a fatal decoder (bad bytes throw, and the line goes the ordinary
// way, which words the error) or the very bytes of a string it decoded before, and bytes
// ≥ 0x80 anywhere else are not JSON, which the scanner refuses.
import { mayHoldLoneSurrogate } from '../core/validate.ts';
import type { ScanViewOf } from './lineRecords.ts';

const singleByte = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const browserScanView: ScanViewOf = (bytes, start, end) => {
  if (start === end) return null;
  const line = bytes.subarray(start, end);
  const chars = singleByte.decode(line);
  // a lone surrogate is the ordinary path's to refuse (the scanner takes every string as well-formed)
  if (chars.includes('\\u') && mayHoldLoneSurrogate(chars)) return null;
  return { chars, parsed: false, utf8: (a, b) => utf8.decode(line.subarray(a, b)) };
};
