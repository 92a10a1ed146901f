// scanSpans' memo of derived_from lists whose parents are all archived (contract §4
// orphaned_parent, §8.2 archived parents): a settled list makes no orphan again, and one
// grown in place since is looked at again.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the scan is handed its hash
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scanSpans } from './spanScan.ts';
import { SpanTable } from './spanTable.ts';
import type { Span } from './wire.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const summary = (parents: string[]): Span => ({ span_id: 'summary', text: 'what was replaced', score: null, text_sha256: null, derived_from: parents });

describe('scanSpans settledParents', () => {
  it('remembers a list of archived parents, and looks again at one grown in place', () => {
    const archived = new Set(['a', 'b']);
    const settled = new WeakMap<readonly string[], number>();
    const parents = ['a', 'b'];
    const first = scanSpans(SpanTable.of([summary(parents)]), null, sha256, 2, archived, settled);
    expect(first.orphanEdges).toBe(0);
    expect(settled.get(parents)).toBe(2);
    // the same array, one parent more that is neither live nor archived
    parents.push('gone');
    const second = scanSpans(SpanTable.of([summary(parents)]), null, sha256, 2, archived, settled);
    expect([second.orphanEdges, second.orphanCiters, [...second.missingParents]]).toEqual([1, ['summary'], ['gone']]);
    expect(settled.get(parents)).toBe(2);
  });

  it('does not remember a list with a parent that is only live, which may yet be pruned', () => {
    const settled = new WeakMap<readonly string[], number>();
    const parents = ['a'];
    const live: Span = { span_id: 'a', text: 'a', score: null, text_sha256: null };
    expect(scanSpans(SpanTable.of([live, summary(parents)]), null, sha256, 2, new Set(), settled).orphanEdges).toBe(0);
    expect(settled.has(parents)).toBe(false);
    expect(scanSpans(SpanTable.of([summary(parents)]), null, sha256, 2, new Set(), settled).orphanEdges).toBe(1);
  });
});
