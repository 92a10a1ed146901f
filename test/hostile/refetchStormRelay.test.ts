// Issue 39, the refetch storm through the relay: a live session's snapshot that goes back for
// n lost files of its compaction at once is one POST; its answer (which carries the turn's
// verdict, so it waits for the analysis) arrives, and the overview counts every confirmed
// loss. The analysis was n × n there (15 s for one 6 MiB POST); its counted work is asserted
// linear in scaling.test.ts, here the relay on loopback only has to answer within the test's bound.
import { describe, expect, it } from 'vitest';
import { refetchStormLines } from './attacks/scaling.ts';
import { postNdjson, relaysPerTest } from '../relay/helpers.ts';

const relay = relaysPerTest();

describe('a refetch storm posted to the relay', () => {
  it.each([false, true])(
    'is answered with the verdict of every turn, and every loss counted (one a turn: %s)',
    async (perTurn) => {
      // 6 MB in one snapshot, as the issue posted; 0.5 MB one a turn
      const n = perTurn ? 3000 : 40_000;
      const r = await relay();
      const lines = refetchStormLines(n, perTurn);
      const { status, json } = await postNdjson(r.url, `${lines.join('\n')}\n`);
      expect(status, JSON.stringify(json.errors ?? json.error)).toBe(200);
      expect(json.errors).toEqual([]);
      const snapshots = (json.accepted as { turn: number | null; verdict?: unknown }[]).filter((a) => a.turn !== null);
      expect(snapshots.length).toBe(lines.length - 1);
      expect(snapshots.every((a) => a.verdict !== null && a.verdict !== undefined)).toBe(true);
      const row = r.analysis!.summaries().find((s) => s.session_id === 'storm');
      expect(row?.context?.confirmed_losses).toBe(n);
      expect(row?.context?.kind).toBe('loss_confirmed');
    },
    60_000,
  );
});
