// Issue 26 #5: a span id holding `|` must not forge cells in report.md's tables (a stale
// span rendered as "bound, pinned"). Rows are split the way GFM (cmark-gfm) splits them.
import { expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '../../src/core/config.ts';
import { reportMarkdown, type ReportData } from '../../src/report/markdown.ts';

/** cmark-gfm's row scanner: a backslash takes the next character with it; every other `|` ends a cell */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = '';
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\' && i + 1 < row.length) {
      cell += row[i]! + row[++i]!;
    } else if (row[i] === '|') {
      out.push(cell.trim());
      cell = '';
    } else cell += row[i];
  }
  out.push(cell.trim());
  return out.slice(1, -1);
}

const FORGED = ['m1` | 10 | 0.5 | bound | 0 | yes | x |', 'a\\|b | bound', 'a|b'];

it('span ids with | stay in their cell, in the spans table and the verdicts table', () => {
  const data: ReportData = {
    sessionId: 's',
    title: null,
    source: { kind: 'file', name: 'run.jsonl', sha256: 'ab'.repeat(32) },
    version: '0.1.0',
    scope: { kind: 'incident', number: 1 },
    range: { from: 1, to: 5 },
    session: { firstTurn: 1, lastTurn: 5, turns: 5 },
    turnsInRange: 5,
    focus: {
      number: 1,
      signal: 'stale_score',
      severity: 'fault',
      firstTurn: 2,
      lastTurn: 3,
      findings: 2,
      message: 'stale',
      spans: FORGED.map((id) => ({ id, turn: 2, text: 'text', score: 0.5, binding: 'stale', rewrites: 0, pinned: false })),
      moreSpans: 0,
    },
    incidents: [],
    verdicts: [{ action: 'recompute', firstTurn: 2, lastTurn: 3, turns: 2, spans: FORGED }],
    thresholds: { ...DEFAULT_THRESHOLDS },
    exportedAt: null,
  };
  const md = reportMarkdown(data, []);
  const spanRows = md.split('\n').filter((l) => l.startsWith('| ') && l.includes('| stale |'));
  expect(spanRows).toHaveLength(FORGED.length);
  for (const row of spanRows) {
    const c = cells(row);
    expect(c, row).toHaveLength(7);
    expect(c.slice(3, 6), row).toEqual(['stale', '0', 'no']);
  }
  const verdictRow = md.split('\n').find((l) => l.includes('`recompute`'))!;
  expect(cells(verdictRow), verdictRow).toHaveLength(4);
});
