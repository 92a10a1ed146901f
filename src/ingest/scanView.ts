// The dashboard's side of the snapshot scanner (snapshotScan.ts; Web APIs only). The scanner
// reads any string in which JSON's structure is ASCII at the places it stands and in which
// equal text means equal bytes; here that is the line's own text, decoded as the ordinary
// path decodes it (strict UTF-8: bad bytes throw, and the line goes the ordinary way, which
// words the error), so a value is a slice of it. A browser has no fast one-char-per-byte
// decoding (its 'latin1' is windows-1252, ~10× slower than UTF-8 in Node's), and its UTF-8
// decoder is what the floor it is measured against pays too. The ordinary path here hands
// the engine the text, so `parsed` is false.
import { mayHoldLoneSurrogate } from '../core/validate.ts';
import type { ScanViewOf } from './lineRecords.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const browserScanView: ScanViewOf = (bytes, start, end) => {
  if (start === end) return null;
  let chars: string;
  try {
    chars = utf8.decode(bytes.subarray(start, end));
  } catch {
    return null; // not UTF-8: the ordinary way says so
  }
  // a string is well-formed unless escaped into a surrogate: strict UTF-8 decodes none
  const wellFormed = !chars.includes('\\u') || !mayHoldLoneSurrogate(chars);
  return { chars, parsed: false, wellFormed, utf8: (a, b) => chars.slice(a, b) };
};
