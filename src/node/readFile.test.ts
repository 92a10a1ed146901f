// A plain file read in place (ReadHooks.inPlace, `check`'s file pool) hands the splitter the
// same lines, line numbers and structure errors as the read on libuv's pool ahead of it, at
// every chunk size (1 and 7 put every line at a chunk's edge), for JSON Lines, a JSON array and
// bytes that are not UTF-8; and both read on past the end for what a writer adds meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeLines } from '../../test/cli/edgeLines.ts';
import type { LineDecoder } from '../ingest/lines.ts';
import { readTranscript, type ReadHooks } from './readFile.ts';

const CHUNKS = [1, 7, 4096, undefined];

/** each line's bytes as hex, so that a line cut at a chunk's edge or mis-decoded shows */
const asHex: LineDecoder<string> = (bytes, start, end) => Buffer.from(bytes.subarray(start, end)).toString('hex');

async function read(file: string, hooks: ReadHooks<string>, onLine?: (line: number) => void): Promise<string[]> {
  const seen: string[] = [];
  const result = await readTranscript<string>(
    file,
    (text, line) => {
      seen.push(`${line} ${typeof text === 'string' ? text : `error ${text.error}`}`);
      onLine?.(line);
    },
    (line, message) => seen.push(`${line} structure ${message}`),
    asHex,
    undefined,
    {},
    hooks,
  );
  seen.push(`format ${result.format} gzip ${result.gzip}`);
  return seen;
}

describe('a plain file read in place: the lines of the read ahead on libuv’s pool', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-read-in-place-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // each input, and how many lines, errors and format lines its reading hands on at least
  const inputs: [string, () => Buffer, number][] = [
    [
      'JSON Lines with CRLF, blank lines and no newline at the end',
      () => Buffer.from(edgeLines().join('\r\n') + '\n\n' + edgeLines()[1]!),
      edgeLines().length + 2,
    ],
    ['a JSON array over several lines, a structure error at the end', () => Buffer.from('[\n' + edgeLines().slice(1, 6).join(',\n') + ',\n]x'), 5],
    [
      'bytes that are not UTF-8 inside a line',
      () => Buffer.concat([Buffer.from(edgeLines()[1]! + '\n{"a":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}\n')]),
      3,
    ],
    ['an empty file', () => Buffer.alloc(0), 1],
  ];

  it.each(inputs)('%s, at every chunk size', async (name, bytes, least) => {
    const file = path.join(dir, `${name.length}.jsonl`);
    fs.writeFileSync(file, bytes());
    for (const chunkBytes of CHUNKS) {
      const ahead = await read(file, chunkBytes === undefined ? {} : { chunkBytes });
      const inPlace = await read(file, { inPlace: true, ...(chunkBytes === undefined ? {} : { chunkBytes }) });
      expect(inPlace, `chunks of ${chunkBytes ?? 'the default'} bytes`).toEqual(ahead);
      expect(ahead.length).toBeGreaterThanOrEqual(least);
    }
  });

  it('reads on past the end for a line a writer adds while the first is handed on', async () => {
    for (const inPlace of [false, true]) {
      const file = path.join(dir, `growing-${inPlace}.jsonl`);
      fs.writeFileSync(file, '{"a":1}\n');
      const seen = await read(file, { inPlace, chunkBytes: 4096 }, (line) => {
        if (line === 1) fs.appendFileSync(file, '{"b":2}\n');
      });
      expect(seen.slice(0, 2), inPlace ? 'in place' : 'ahead').toEqual([
        `1 ${Buffer.from('{"a":1}').toString('hex')}`,
        `2 ${Buffer.from('{"b":2}').toString('hex')}`,
      ]);
    }
  });
});
