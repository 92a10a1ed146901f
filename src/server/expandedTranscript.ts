// GET /api/sessions/<id>/transcript?expand=1: the session's log with every compact
// snapshot made whole (contract §7 compact wire), for a reader that only knows version 1.
// The stored log keeps the compact form; this carries the texts forward line by line as
// it streams, with the same carry-forward as every other reader (src/core/compact.ts).
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { TextCarry } from '../core/compact.ts';
import { drainedOrClosed } from './httpReply.ts';

/** Writes the lines of `chunks` (a log: complete lines, each ending in LF) expanded; resolves when written. */
export async function writeExpanded(res: ServerResponse, chunks: AsyncIterable<Buffer>): Promise<void> {
  const carry = new TextCarry();
  // a chunk may end inside a character: the decoder holds its first bytes for the next one
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const emit = async (line: string): Promise<void> => {
    let out = line;
    try {
      const value = JSON.parse(line) as unknown;
      const expanded = carry.expand(value);
      if (expanded !== value) out = JSON.stringify(expanded);
    } catch {
      // a stored line is always JSON; if not, it goes out as it is
    }
    if (!res.write(out + '\n')) await drainedOrClosed(res);
  };
  for await (const chunk of chunks) {
    if (res.destroyed) return;
    const text = rest + decoder.write(chunk);
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const line of parts) await emit(line);
  }
  if (rest !== '') await emit(rest);
  res.end();
}
