// Sample ReportData for the tests that hold the report's bytes fixed (src/report/pieces.test.ts):
// an incident report, a report about turns with many incidents, a compaction report with a
// summary and items, an encrypted summary, a session no score detector ran on (contract §8.9),
// each with hostile text where input goes. Test-only; nothing in the product imports it.
import { DEFAULT_THRESHOLDS } from '../core/config.ts';
import type { CompactionRecord } from '../core/compactions.ts';
import type { HtmlFigure } from './html.ts';
import type { ReportData, ReportImage, ReportIncident } from './markdown.ts';

export const HOSTILE = 'ignore <script>alert(1)</script> | col ![x](http://evil/) `tick` **bold** \u0007 </script>';

function incident(n: number, over: Partial<ReportIncident> = {}): ReportIncident {
  return {
    number: n,
    signal: 'stale_score',
    severity: 'fault',
    firstTurn: 10,
    lastTurn: 21,
    findings: 12,
    message: `span "m19" has text_sha256 ≠ sha256(text) ${HOSTILE}`,
    spans: [
      { id: 'm19', turn: 10, text: HOSTILE, score: 0.77214, binding: 'stale', rewrites: 1, pinned: false },
      { id: 'a|b', turn: 11, text: null, score: null, binding: 'not live', rewrites: 0, pinned: true },
      { id: 'long', turn: 12, text: 'word '.repeat(400), score: 0.1, binding: 'bound', rewrites: 3, pinned: false },
    ],
    moreSpans: n % 2,
    ...over,
  };
}

const base: ReportData = {
  sessionId: 'run`42',
  title: 'A *title*',
  source: { kind: 'file', name: 'run.jsonl', sha256: 'ab'.repeat(32) },
  version: '0.1.0',
  scope: { kind: 'incident', number: 1 },
  range: { from: 5, to: 26 },
  session: { firstTurn: 1, lastTurn: 150, turns: 150 },
  turnsInRange: 22,
  focus: incident(1),
  incidents: [incident(2, { signal: 'unreported_rewrite', firstTurn: 12, lastTurn: 12, findings: 1 })],
  verdicts: [
    { action: 'recompute', firstTurn: 10, lastTurn: 21, turns: 12, spans: ['m18', 'm19', 'm20', 'a', 'b', 'c', 'd', 'e', 'f', 'g'] },
    { action: 'freeze', firstTurn: 22, lastTurn: 22, turns: 1, spans: [] },
    { action: 'drop', firstTurn: 15, lastTurn: 15, turns: 1, spans: ['m7'] },
  ],
  thresholds: { ...DEFAULT_THRESHOLDS, spread_floor: 0.1 },
  exportedAt: null,
  labels: { m19: `label ${HOSTILE}` },
};

export const SAMPLE_COMPACTION: CompactionRecord = {
  turn: 160,
  kind: 'compact',
  trigger: 'auto',
  tokens_before: 167012,
  tokens_after: 31002,
  agent_tokens_before: 167500,
  spans_replaced: 451,
  summary_span_ids: ['u9#0'],
  summary_text: `The user asked for batching. ${HOSTILE}\n\`\`\`\nnot a fence end\r\nsecond line`,
  items: [
    { kind: 'file', text: '/repo/a|b.ts', status: 'kept', from_turn: 3, span_id: 'a3#1', refetched_at: null, confirmed: false },
    { kind: 'user_prompt', text: HOSTILE, status: 'paraphrased', from_turn: 1, span_id: 'u1#0', refetched_at: null, confirmed: false },
    { kind: 'file', text: '/repo/lost.ts', status: 'lost', from_turn: 12, span_id: null, refetched_at: null, confirmed: false },
    { kind: 'file', text: '/repo/needed.ts', status: 'lost', from_turn: 14, span_id: 'a14#0', refetched_at: 171, confirmed: true },
    { kind: 'user_prompt', text: 'a prompt '.repeat(300), status: 'unknown', from_turn: 2, span_id: 'm19', refetched_at: null, confirmed: false },
  ],
  carried: [{ kind: 'user_prompt', text: 'keep the API', status: 'kept', from_turn: 1, span_id: 'u1#0', first_audited_at: 80 }],
  carried_not_followed: 3,
  retention: {
    file: { items: 3, kept: 1, paraphrased: 0, lost: 2, confirmed: 1 },
    user_prompt: { items: 2, kept: 0, paraphrased: 1, lost: 0, confirmed: 0, unknown: 1 },
  },
};

/** name → data; every case the report's sections branch on */
export const SAMPLES: Record<string, ReportData> = {
  incident: base,
  turns: {
    ...base,
    scope: { kind: 'turns', from: 5, to: 26 },
    focus: null,
    incidents: Array.from({ length: 34 }, (_, i) => incident(i + 1, i % 3 === 0 ? { spans: [] } : {})),
  },
  session: { ...base, scope: { kind: 'session' }, focus: null, incidents: [], verdicts: [], title: null, exportedAt: '2026-01-02T03:04:05.000Z' },
  compaction: { ...base, scope: { kind: 'turns', from: 155, to: 165 }, focus: null, compaction: SAMPLE_COMPACTION },
  encrypted: {
    ...base,
    scope: { kind: 'turns', from: 155, to: 165 },
    focus: null,
    incidents: [],
    compaction: { ...SAMPLE_COMPACTION, summary_state: 'encrypted', summary_text: '', items: [], carried: [], retention: {} },
  },
  noSummary: { ...base, focus: null, compaction: { ...SAMPLE_COMPACTION, summary_text: '', carried_not_followed: 1 } },
  hugeSummary: { ...base, focus: null, compaction: { ...SAMPLE_COMPACTION, summary_text: 'lorem ipsum '.repeat(9000) } },
  context: { ...base, context: { turn: 26, text: `tokens 120,000 of 200,000 ${HOSTILE}` } },
};

export const SAMPLE_IMAGES: ReportImage[] = [
  { file: 'images/spread.png', svgFile: 'images/spread.svg', title: 'Score spread' },
  { file: 'images/a b.png', title: 'Tokens' },
];

export const SAMPLE_STAMP_LINES = ['context-health 0.1.0', `source ${HOSTILE}`];

export const SAMPLE_FIGURES: HtmlFigure[] = [
  { title: 'Score spread', svg: '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><text>a &lt; b</text></svg>' },
  { title: `T ${HOSTILE}`, svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
];
