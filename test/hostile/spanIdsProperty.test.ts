// docs/adapters.md span id rules, as a property over the committed fixtures: whatever id a file
// gives one of its records, no snapshot holds two spans with one span_id (the engine refuses such
// a snapshot, and every later one carries both spans). Each id a file gives a record (a Claude
// Code `uuid`, a Gemini CLI message `id`, also in `$set` checkpoints and `$rewindTo`, an OpenHands
// event `id`) is set in turn to ids the hostile file wants to collide with: every span id the
// fixture's own snapshots hold, every id the file holds, and the line ids of records without
// one. Codex, SWE-agent and mini-swe-agent take no span id from the file (src/ingest/adapters:
// line numbers and message indexes); their one-line-array case is in spanIds.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertText } from '../../src/ingest/adapters/convert.testing.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One place a file holds an id: the records with it rewritten to `id`. */
type Slot = (records: readonly Json[], id: string | number) => Json[];

interface Case {
  name: string;
  records: Json[];
  text: (records: readonly Json[]) => string;
  slots: Slot[];
  /** the file's own ids */
  ids: (string | number)[];
}

const jsonl = (records: readonly Json[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

function readJsonl(file: string): Json[] {
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return isObj(v) ? [v] : [];
      } catch {
        return [];
      }
    });
}

/** A slot for `key` of record i (top-level), and one for `key` of element j of its array `list`. */
const field =
  (i: number, key: string): Slot =>
  (rs, id) =>
    rs.map((r, k) => (k === i ? { ...r, [key]: id } : r));
const inList =
  (i: number, list: string, j: number, key: string): Slot =>
  (rs, id) =>
    rs.map((r, k) => (k === i ? { ...r, [list]: (r[list] as Json[]).map((e, m) => (m === j ? { ...e, [key]: id } : e)) } : r));

/** The slots of every record holding `key`, and of the objects of its array `list` holding `inner`. */
function slotsOf(records: readonly Json[], key: string, list?: { name: string; key: string }): { slots: Slot[]; ids: (string | number)[] } {
  const slots: Slot[] = [];
  const ids: (string | number)[] = [];
  records.forEach((r, i) => {
    const v = r[key];
    if (typeof v === 'string' || typeof v === 'number') {
      slots.push(field(i, key));
      ids.push(v);
    }
    const l = list === undefined ? undefined : r[list.name];
    if (list !== undefined && Array.isArray(l))
      l.forEach((e: unknown, j) => {
        if (!isObj(e)) return;
        const inner = e[list.key];
        if (typeof inner !== 'string' && typeof inner !== 'number') return;
        slots.push(inList(i, list.name, j, list.key));
        ids.push(inner);
      });
  });
  return { slots, ids };
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const file of [
    'test/fixtures/adapters/claude-code.jsonl',
    'test/fixtures/adapters/claude-code-other-backend.jsonl',
    'public/samples/agents/claude-code-session.jsonl',
  ]) {
    const records = readJsonl(file);
    out.push({ name: file, records, text: jsonl, ...slotsOf(records, 'uuid') });
  }
  {
    // the JSONL recording: message ids, the ids of a checkpoint's messages, the id a rewind names
    const records = readJsonl('test/fixtures/adapters/gemini-session.jsonl');
    const { slots, ids } = slotsOf(records, 'id');
    records.forEach((r, i) => {
      if (typeof r.$rewindTo === 'string') slots.push((rs, id) => rs.map((x, k) => (k === i ? { $rewindTo: id } : x)));
      const set = r.$set;
      if (!isObj(set) || !Array.isArray(set.messages)) return;
      set.messages.forEach((m: unknown, j) => {
        if (!isObj(m) || typeof m.id !== 'string') return;
        ids.push(m.id);
        slots.push((rs, id) =>
          rs.map((x, k) => (k === i ? { $set: { ...set, messages: (set.messages as Json[]).map((e, n) => (n === j ? { ...e, id } : e)) } } : x)),
        );
      });
    });
    out.push({ name: 'gemini-session.jsonl', records, text: jsonl, slots, ids });
  }
  {
    // the legacy document, its messages as the records
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/adapters/gemini-session.json'), 'utf8')) as Json;
    const records = doc.messages as Json[];
    out.push({ name: 'gemini-session.json', records, text: (rs) => JSON.stringify({ ...doc, messages: rs }, null, 2) + '\n', ...slotsOf(records, 'id') });
  }
  for (const file of ['openhands-events.json', 'openhands-v0-trajectory.json']) {
    const records = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/adapters', file), 'utf8')) as Json[];
    out.push({ name: file, records, text: jsonl, ...slotsOf(records, 'id') });
  }
  {
    const records = readJsonl('test/fixtures/adapters/openhands-v0-output.jsonl');
    out.push({ name: 'openhands-v0-output.jsonl', records, text: jsonl, ...slotsOf(records, '', { name: 'history', key: 'id' }) });
  }
  return out;
}

/** Span ids of every snapshot of the text, after checking no snapshot repeats one. */
function spanIds(text: string, what: string): Set<string> {
  const r = convertText(text);
  expect(r.errors, what).toEqual([]);
  const all = new Set<string>();
  for (const s of r.snapshots) {
    const ids = s.spans.map((x) => x.span_id);
    const once = new Set(ids);
    if (once.size !== ids.length) expect.fail(`${what}: turn ${s.turn} repeats a span id: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(' ')}`);
    for (const id of ids) all.add(id);
  }
  return all;
}

describe('no id a file gives a record makes two spans of a snapshot share an id', () => {
  it.each(cases().map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(c.slots.length).toBeGreaterThan(0);
    const produced = spanIds(c.text(c.records), 'the fixture');
    expect(produced.size).toBeGreaterThan(1);
    // every span id a snapshot holds, every id of the file, line ids, and the derived forms of the first id
    const targets = [
      ...new Set<string | number>([
        ...produced,
        ...c.ids,
        'line1',
        'line2',
        'line3',
        'line1.2',
        'system',
        `${String(c.ids[0])}#0`,
        `${String(c.ids[0])}-summary`,
      ]),
    ];
    let tried = 0;
    c.slots.forEach((slot, s) => {
      // each slot with a share of the targets (all of them for the small fixtures), bounded
      for (let t = s % 3; t < targets.length; t += 3) {
        tried++;
        spanIds(c.text(slot(c.records, targets[t]!)), `${c.name}: id ${s} set to ${JSON.stringify(targets[t])}`);
      }
    });
    expect(tried).toBeGreaterThan(10);
  });
});
