// Issue 39 #3: n compactions, each carrying every earlier item. The audit follows at most
// CARRIED_MAX items from one compaction to the next and counts the rest (contract §8.3
// `carried_not_followed`), and a carried item is one object however many compactions list
// it, so neither the time nor the items held grow as n² (docs/security.md "Linear time").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { CARRIED_MAX, type CarriedItem } from '../../src/core/compactionAudit.ts';
import type { Snapshot } from '../../src/core/wire.ts';
import { ClaudeCodeAdapter } from '../../src/ingest/adapters/claudeCode.ts';
import { ccCompactionsCarrying } from './attacks/transcripts.ts';

/** past the cap by this many compactions */
const PAST = 30;
const N = CARRIED_MAX + PAST;

describe('n compactions, each carrying every earlier item', () => {
  it('each snapshot carries at most CARRIED_MAX, counts the rest, and holds one object per item', () => {
    const adapter = new ClaudeCodeAdapter('carried');
    const marks: { carried: CarriedItem[]; carried_not_followed?: number }[] = [];
    let line = 0;
    for (const l of ccCompactionsCarrying(N)) {
      for (const m of adapter.record(JSON.parse(l) as unknown, ++line)) {
        const c = (m.value as Snapshot).compaction as (typeof marks)[number] | undefined;
        if (c !== undefined) marks.push(c);
      }
    }
    expect(marks).toHaveLength(N);
    expect(Math.max(...marks.map((c) => c.carried.length))).toBe(CARRIED_MAX);
    // compaction k (1-based) carries the k - 1 before it, until the cap
    expect(marks.slice(0, CARRIED_MAX + 1).every((c, k) => c.carried.length === k && c.carried_not_followed === undefined)).toBe(true);
    expect(marks.slice(CARRIED_MAX + 1).map((c) => c.carried_not_followed)).toEqual(Array.from({ length: PAST - 1 }, (_, i) => i + 1));
    // shared, not copied: every list names the same objects (the first compaction's own copy each)
    const objects = new Set<CarriedItem>();
    for (const c of marks) for (const it of c.carried) objects.add(it);
    expect(objects.size).toBe(CARRIED_MAX);
  }, 30_000);

  it('check --json lists the count on the compaction record, only past the cap', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-carried-'));
    const file = path.join(dir, 'session.jsonl');
    fs.writeFileSync(file, [...ccCompactionsCarrying(N)].join('\n') + '\n');
    const { report } = await checkTranscript(file, { userThresholds: {} });
    const records = report.sessions[0]!.compactions ?? [];
    expect(records).toHaveLength(N);
    expect(records.filter((r) => 'carried_not_followed' in r).map((r) => r.carried_not_followed)).toEqual(Array.from({ length: PAST - 1 }, (_, i) => i + 1));
    expect(records.at(-1)!.carried).toHaveLength(CARRIED_MAX);
    fs.rmSync(dir, { recursive: true });
  }, 60_000);
});
