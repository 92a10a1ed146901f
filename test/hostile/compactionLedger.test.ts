// src/core/compactions.ts (issue 39, the refetch storm): the ledger's figures kept turn by turn (refetches through an index, the
// confirmed counts in place, the headline's tally) are those a pass over every item gives.
import { describe, expect, it } from 'vitest';
import { confirmedLosses } from '../../src/report/contextHeadline.ts';
import { CompactionLedger, readCompaction, retentionOf } from '../../src/core/compactions.ts';
import type { Snapshot } from '../../src/core/wire.ts';

describe('CompactionLedger', () => {
  it('agrees with a pass over every item, on random compactions and refetch storms', () => {
    let seed = 3;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 60; round++) {
      const ledger = new CompactionLedger();
      const compactionTurns: number[] = [];
      // the refetches as findIndex over every item assigns them
      const model = new Map<number, { kind: string; text: string; at: number | null }[]>();
      for (let turn = 1; turn <= 30; turn++) {
        const snap: Record<string, unknown> = { type: 'snapshot', session_id: 's', turn, spans: [] };
        if (rnd(4) === 0) {
          const items = Array.from({ length: rnd(6) }, () => ({
            kind: rnd(2) === 0 ? 'file' : 'user_prompt',
            text: `t${rnd(3)}`,
            status: ['kept', 'lost', 'lost', 'paraphrased'][rnd(4)],
            from_turn: 1,
            span_id: null,
          }));
          snap.compaction = { kind: 'compact', replaced: [], summary: [], items, carried: [] };
          compactionTurns.push(turn);
        }
        if (compactionTurns.length > 0 && rnd(2) === 0)
          snap.refetched = Array.from({ length: rnd(5) }, () => ({
            compaction_turn: compactionTurns[rnd(compactionTurns.length)],
            kind: rnd(2) === 0 ? 'file' : 'user_prompt',
            text: `t${rnd(3)}`,
            // a refetch may name a later turn than its snapshot's (untrusted input)
            turn: turn + rnd(3),
          }));
        if (snap.compaction !== undefined)
          model.set(
            turn,
            (snap.compaction as { items: { kind: string; text: string }[] }).items.map((it) => ({ kind: it.kind, text: it.text, at: null })),
          );
        for (const r of (snap.refetched ?? []) as { compaction_turn: number; kind: string; text: string; turn: number }[]) {
          const it = model.get(r.compaction_turn)?.find((m) => m.kind === r.kind && m.text === r.text && m.at === null);
          if (it !== undefined) it.at = r.turn;
        }
        const s = snap as unknown as Snapshot;
        const got = ledger.observe(s, readCompaction(s), '', null, 0, 2);
        const asked = rnd(5) === 0 ? turn - rnd(4) : turn;
        const losses = confirmedLosses(ledger.records, asked);
        expect(ledger.tally(asked)).toEqual({
          compactions: ledger.records.filter((c) => c.turn <= asked).length,
          losses: losses.length,
          latest: losses[0] ?? null,
        });
        for (const r of ledger.records) {
          expect(r.retention).toEqual(retentionOf(r.items));
          expect(r.items.map((it) => it.refetched_at)).toEqual(model.get(r.turn)!.map((m) => m.at));
        }
        for (const l of got?.losses ?? []) expect(l.items.length).toBeGreaterThanOrEqual(2);
      }
    }
  });
});
