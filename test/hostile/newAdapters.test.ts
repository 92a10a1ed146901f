// Issue 39, the new doors: the hostile corpus run over the importers added this round (Gemini
// CLI .jsonl and .json, OpenHands events.json, Codex's first rollout format). Each record of
// the committed fixtures is mutated in turn (nested 100k deep, 300k copies of its array
// elements, a 4 MiB string, each field of the wrong type) and each document is cut in the
// middle; `check` must give at most one input error for the bad record, on its own line, and
// read the rest as it read it before. Generated here from the small fixtures, bounded.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { tempDir } from '../relay/helpers.ts';
import { nestedArrays } from './attacks/transcripts.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/adapters');

interface Outcome {
  errors: { line: number; message: string }[];
  turns: number;
}

async function checked(file: string): Promise<Outcome> {
  const { report } = await checkTranscript(file, { userThresholds: {}, threads: 1 });
  return { errors: report.input_errors.map((e) => ({ line: e.line, message: e.message })), turns: report.sessions.reduce((n, s) => n + s.turns, 0) };
}

type Json = Record<string, unknown>;
const DEEP = '"__DEEP__"';

/** The mutations of one record: each a name and the record's new text. */
function mutations(record: Json): [string, string][] {
  const out: [string, string][] = [];
  const keys = Object.keys(record);
  // nested 100k deep in a new field and in place of the record's first array or object
  out.push(['deep extra field', JSON.stringify({ ...record, zz: '__DEEP__' }).replace(DEEP, nestedArrays(100_000))]);
  const container = keys.find((k) => typeof record[k] === 'object' && record[k] !== null);
  if (container !== undefined) out.push([`deep ${container}`, JSON.stringify({ ...record, [container]: '__DEEP__' }).replace(DEEP, nestedArrays(100_000))]);
  // 300k copies of the first element of each array found one level down (content blocks, parts, tool calls)
  for (const k of keys) {
    const v = record[k];
    const arrays: [string, unknown[]][] = Array.isArray(v) ? [[k, v]] : [];
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      for (const [k2, v2] of Object.entries(v as Json)) if (Array.isArray(v2)) arrays.push([`${k}.${k2}`, v2]);
    for (const [where, arr] of arrays) {
      if (arr.length === 0) continue;
      const many = Array.from({ length: 300_000 }, () => arr[0]);
      const copy = structuredClone(record);
      const parts = where.split('.');
      if (parts.length === 1) copy[parts[0]!] = many;
      else (copy[parts[0]!] as Json)[parts[1]!] = many;
      out.push([`300k ${where}`, JSON.stringify(copy)]);
    }
  }
  // a 4 MiB string in place of each string field
  for (const k of keys) if (typeof record[k] === 'string') out.push([`huge ${k}`, JSON.stringify({ ...record, [k]: 'x'.repeat(4 * 1024 * 1024) })]);
  // each field of each wrong type
  for (const k of keys)
    for (const wrong of [42, null, true, [], {}, 'str'])
      if (typeof wrong !== typeof record[k]) out.push([`${k}=${JSON.stringify(wrong)}`, JSON.stringify({ ...record, [k]: wrong })]);
  return out;
}

/** The mutated line's errors are at most one, on its own line; every other line's are as before. */
function judged(base: Outcome, got: Outcome, line: number, label: string): void {
  const own = got.errors.filter((e) => e.line === line);
  expect(own.length, `${label}: ${JSON.stringify(own.map((e) => e.message.slice(0, 120)))}`).toBeLessThanOrEqual(1);
  for (const e of own) expect(e.message, label).not.toMatch(/Maximum call stack|Invalid string length|Invalid array length|\n\s+at /);
  expect(
    got.errors.filter((e) => e.line !== line),
    label,
  ).toEqual(base.errors.filter((e) => e.line !== line));
  // the rest is read: at most the turns this one record made are lost
  expect(got.turns, label).toBeGreaterThanOrEqual(base.turns - 1);
}

describe('the JSONL importers over the hostile corpus, record by record', () => {
  for (const fixture of ['gemini-session.jsonl', 'codex-first-format.jsonl']) {
    it(`${fixture}: every record mutated in turn gives at most one input error for it, the rest read`, async () => {
      const dir = tempDir('ch-new-adapters-');
      const source = path.join(FIXTURES, fixture);
      const lines = fs.readFileSync(source, 'utf8').split('\n');
      const base = await checked(source);
      expect(base.turns).toBeGreaterThan(0);
      const file = path.join(dir, fixture);
      let runs = 0;
      // the first line names the format: mutating it may leave a file of no known format, so it is attacked apart
      for (let i = 1; i < lines.length; i++) {
        if (lines[i]!.trim() === '') continue;
        const record = JSON.parse(lines[i]!) as Json;
        let prefixBase: Outcome | null = null;
        for (const [name, text] of mutations(record)) {
          // 300k blocks are the record's last: every later turn's snapshot would carry its 300k
          // spans again (contract §2: a snapshot lists its whole window), which is the window's
          // size, not this record's fault
          const last = name.startsWith('300k');
          if (last && prefixBase === null) {
            fs.writeFileSync(file, lines.slice(0, i + 1).join('\n'));
            prefixBase = await checked(file);
          }
          fs.writeFileSync(file, [...lines.slice(0, i), text, ...(last ? [] : lines.slice(i + 1))].join('\n'));
          judged(last ? prefixBase! : base, await checked(file), i + 1, `${fixture} line ${i + 1} ${name}`);
          runs++;
        }
      }
      expect(runs).toBeGreaterThan(50);
    }, 300_000);
  }
});

describe('the JSON-document importers over the hostile corpus, element by element', () => {
  const documents: [string, (doc: unknown) => Json[]][] = [
    ['gemini-session.json', (doc) => (doc as { messages: Json[] }).messages],
    ['openhands-events.json', (doc) => doc as Json[]],
  ];
  for (const [fixture, elements] of documents) {
    it(`${fixture}: every element mutated in turn, and the document cut in the middle`, async () => {
      const dir = tempDir('ch-new-adapters-');
      const source = path.join(FIXTURES, fixture);
      const doc = JSON.parse(fs.readFileSync(source, 'utf8')) as unknown;
      const file = path.join(dir, fixture);
      // one element a line, so an error's line names its element
      const write = (mutated: (string | null)[], upTo = Number.POSITIVE_INFINITY): void => {
        const body = elements(doc)
          .slice(0, upTo)
          .map((e, i) => mutated[i] ?? JSON.stringify(e));
        const array = `[\n${body.join(',\n')}\n]`;
        // Gemini CLI writes its document pretty-printed (JSON.stringify(conversation, null, 2)): its head so, its messages a line each
        const text = Array.isArray(doc) ? array : JSON.stringify({ ...(doc as Json), messages: '__M__' }, null, 2).replace('"__M__"', array);
        fs.writeFileSync(file, text);
      };
      write([]);
      const base = await checked(file);
      expect(base.errors).toEqual([]);
      expect(base.turns).toBeGreaterThan(0);
      const firstLine =
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .findIndex((l) => l.startsWith('{"')) + 1;
      const n = elements(doc).length;
      // the first element names the format (as the first line does above): it is attacked apart
      for (let i = 1; i < n; i++) {
        let prefixBase: Outcome | null = null;
        for (const [name, text] of mutations(elements(doc)[i]!)) {
          // 300k blocks are the last element (as for the JSONL files above)
          const last = name.startsWith('300k');
          if (last && prefixBase === null) {
            write([], i + 1);
            prefixBase = await checked(file);
          }
          const mutated: (string | null)[] = [];
          mutated[i] = text;
          write(mutated, last ? i + 1 : undefined);
          judged(last ? prefixBase! : base, await checked(file), firstLine + i, `${fixture} element ${i} ${name}`);
        }
      }
      // cut at a quarter, half and three quarters: the elements before the cut are read, one error says where it ends
      write([]);
      const whole = fs.readFileSync(file);
      for (const at of [0.25, 0.5, 0.75]) {
        fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length * at)));
        const got = await checked(file);
        expect(got.errors.length, `cut at ${at}: ${JSON.stringify(got.errors)}`).toBeLessThanOrEqual(1);
        expect(got.errors.map((e) => e.message).join(''), `cut at ${at}`).not.toMatch(/Maximum call stack|\n\s+at /);
      }
    }, 300_000);
  }
});
