// contract §6.1 "Many files": a .jsonl in a folder is told by its first record. The walk reads
// the first 64 KiB of a file first and the whole head (a MiB) only when that record does not
// end there (batchFiles.ts readHead); each case here straddles that cut, and each answer must
// be the one the whole head gives.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recognisedTranscript } from '../../src/cli/batchFiles.ts';

const KIB = 1024;
let dir: string;
let n = 0;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-batch-files-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** a file of these bytes, with a name of its own */
function file(data: string | Buffer, ext = '.jsonl'): string {
  const p = path.join(dir, `f${n++}${ext}`);
  fs.writeFileSync(p, data);
  return p;
}

/** a Claude Code user record whose prompt is `content` */
const claudeCodeRecordOf = (content: string): string =>
  JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2026-11-30T10:00:00.000Z', message: { role: 'user', content } });

/** a Claude Code user record about `bytes` long */
const claudeCodeRecord = (bytes: number): string => claudeCodeRecordOf('x'.repeat(bytes));

/**
 * A line (a record, or `head` and a record) whose prompt is "€"s, three bytes each, and in
 * which the first read's end (64 KiB) falls inside a "€", a few bytes before the line's end.
 */
function cutInsideEuro(head = ''): string {
  const before = Buffer.byteLength(head + claudeCodeRecordOf('').slice(0, -3)); // the record up to its prompt's first character
  for (let pad = 0; ; pad++) {
    // the "€" that holds byte 64 KiB: its first byte at or before it, not on it
    const into = 64 * KIB - before - pad;
    if (into % 3 === 0) continue;
    const line = head + claudeCodeRecordOf('a'.repeat(pad) + '€'.repeat(Math.ceil(into / 3) + 1));
    expect(Buffer.byteLength(line)).toBeGreaterThan(64 * KIB);
    expect(Buffer.byteLength(line)).toBeLessThan(64 * KIB + 16);
    return line;
  }
}

/** a record of no agent's format and not the product's own, about `bytes` long */
const logRecord = (bytes: number): string => JSON.stringify({ level: 'info', msg: 'y'.repeat(bytes) });

/** what follows the first record: enough lines that the file is past the first read */
const rest = `${claudeCodeRecord(200)}\n`.repeat(600);

describe('a .jsonl told by its first record (the first 64 KiB read first)', () => {
  it('a first record that ends within the first read, in a file longer than it', async () => {
    expect(await recognisedTranscript(file(`${claudeCodeRecord(300)}\n${rest}`))).toBe(true);
    expect(await recognisedTranscript(file(`${logRecord(300)}\n${rest}`))).toBe(false);
  });

  it('a first record that ends past the first read: the whole head tells it', async () => {
    expect(await recognisedTranscript(file(`${claudeCodeRecord(100 * KIB)}\n${rest}`))).toBe(true);
    expect(await recognisedTranscript(file(`${logRecord(100 * KIB)}\n${rest}`))).toBe(false);
  });

  it('a first record whose last characters are cut by the first read (three bytes each)', async () => {
    expect(await recognisedTranscript(file(`${cutInsideEuro()}\n${rest}`))).toBe(true);
    // a short first record, and a character cut by the first read in the line after it
    const first = claudeCodeRecord(300);
    expect(await recognisedTranscript(file(`${first}\n${cutInsideEuro(`${first}\n`).slice(first.length + 1)}\n`))).toBe(true);
    const log = logRecord(300);
    expect(await recognisedTranscript(file(`${log}\n${cutInsideEuro(`${log}\n`).slice(log.length + 1)}\n`))).toBe(false);
  });

  it('blank lines and a byte-order mark before the first record, past the first read or not', async () => {
    expect(await recognisedTranscript(file(`\uFEFF\n\n  \r\n${claudeCodeRecord(300)}\n${rest}`))).toBe(true);
    expect(await recognisedTranscript(file(`${'\n'.repeat(70 * KIB)}${claudeCodeRecord(300)}\n${rest}`))).toBe(true);
    expect(await recognisedTranscript(file(`${' \r\n'.repeat(30 * KIB)}${logRecord(300)}\n${rest}`))).toBe(false);
  });

  it('a first record with no end in the whole head is read (its line says what it holds); a gzip is told by its inflated head', async () => {
    expect(await recognisedTranscript(file(logRecord(1100 * KIB)))).toBe(true);
    expect(await recognisedTranscript(file(zlib.gzipSync(`${claudeCodeRecord(300)}\n${rest}`), '.jsonl.gz'))).toBe(true);
    expect(await recognisedTranscript(file(zlib.gzipSync(`${logRecord(300)}\n${rest}`), '.jsonl.gz'))).toBe(false);
  });

  it('several files told at once, each by its own bytes', async () => {
    const files = Array.from({ length: 12 }, (_, i) => file(`${i % 2 === 0 ? claudeCodeRecord(300 + i) : logRecord(300 + i)}\n${rest}`));
    expect(await Promise.all(files.map((f) => recognisedTranscript(f)))).toEqual(files.map((_, i) => i % 2 === 0));
  });
});

describe("Gemini CLI's prompt log in a folder (logs.json beside chats/)", () => {
  const entry = (i: number): Record<string, unknown> => ({
    sessionId: `s${i}`,
    messageId: i,
    type: 'user',
    message: `prompt ${i}`,
    timestamp: '2026-03-31T01:15:57.576Z',
  });

  it("is skipped, as its logger writes it (pretty-printed) and on one line; an array of the product's own messages is read", async () => {
    expect(await recognisedTranscript(file(JSON.stringify([entry(0), entry(1)], null, 2), '.json'))).toBe(false);
    expect(await recognisedTranscript(file(JSON.stringify([entry(0)]), '.json'))).toBe(false);
    expect(await recognisedTranscript(file(zlib.gzipSync(JSON.stringify([entry(0)], null, 2)), '.json.gz'))).toBe(false);
    // a quote escaped in the session id does not end it early
    expect(await recognisedTranscript(file(JSON.stringify([{ ...entry(0), sessionId: 'a"b\\' }], null, 2), '.json'))).toBe(false);
    expect(await recognisedTranscript(file(JSON.stringify([{ type: 'session', session_id: 's', v: 1 }], null, 2), '.json'))).toBe(true);
    // other keys first: not the logger's layout, so read (its line then says what it holds)
    expect(await recognisedTranscript(file(JSON.stringify([{ messageId: 0, sessionId: 's' }]), '.json'))).toBe(true);
  });
});
