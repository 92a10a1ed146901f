// Node's fast paths for the two costs that dominate a run (docs/perf-log/notebook.md): turning bytes into
// strings, and sha256 of span texts.
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import crypto from 'node:crypto';
import type { Sha256Hex } from '../core/analyse.ts';
import type { LineDecoder } from '../ingest/lines.ts';

/**
 * ASCII lines (most JSON, and everything Python's json.dumps writes by default) decode as
 * latin1, which is a copy; other lines are validated then decoded as UTF-8.
 */
export const nodeDecoder: LineDecoder = (bytes, start, end) => {
  const view = bytes.subarray(start, end);
  const buf = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  if (isAscii(view)) return buf.toString('latin1');
  if (!isUtf8(view)) throw new Error('not valid UTF-8');
  return buf.toString('utf8');
};

type OneShotHash = (algorithm: string, data: string, encoding: 'hex') => string;
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** crypto.hash (Node ≥ 20.12) is about twice as fast as createHash for short texts. */
export const nodeSha256: Sha256Hex =
  oneShot !== undefined ? (text) => oneShot('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
