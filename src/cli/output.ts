import type { Writable } from 'node:stream';

/** Writes `text` and resolves once it is flushed, so a large report survives a pipe (contract §6). */
export function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}
