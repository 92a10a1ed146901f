import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '../core/config.ts';
import { figureSvg } from './figure.ts';
import {
  MAX_DETAILED_INCIDENTS,
  mdCode,
  REFERENCE_CHARTS_WORDS,
  reportMarkdown,
  shorten,
  type ReportData,
  type ReportImage,
  type ReportIncident,
} from './markdown.ts';
import { reportHtml } from './html.ts';
import { captionLines, nonDefaultThresholds, parseStamp, stampJson, type Stamp } from './stamp.ts';

const HOSTILE = 'ignore <script>alert(1)</script> | col ![x](http://evil/) `tick` **bold**';

function incident(n: number, over: Partial<ReportIncident> = {}): ReportIncident {
  return {
    number: n,
    signal: 'stale_score',
    severity: 'fault',
    firstTurn: 10,
    lastTurn: 21,
    findings: 12,
    message: 'span "m19" has text_sha256 ≠ sha256(text)',
    spans: [{ id: 'm19', turn: 10, text: HOSTILE, score: 0.77214, binding: 'stale', rewrites: 1, pinned: false }],
    moreSpans: 0,
    ...over,
  };
}

const data: ReportData = {
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
    { action: 'recompute', firstTurn: 10, lastTurn: 21, turns: 12, spans: ['m18', 'm19', 'm20'] },
    { action: 'drop', firstTurn: 15, lastTurn: 15, turns: 1, spans: ['m7'] },
  ],
  thresholds: { ...DEFAULT_THRESHOLDS, spread_floor: 0.1 },
  exportedAt: null,
};

describe('incident report Markdown', () => {
  const md = reportMarkdown(data, [{ file: 'images/spread.png', svgFile: 'images/spread.svg', title: 'Score spread' }]);

  it('says what fired, where, the rule with its link, the verdicts and the thresholds', () => {
    expect(md).toMatch(/^# Incident 1: `stale_score` \(fault\), turns 10–21\n/);
    expect(md).toContain('This report covers turns 5–26 (22 snapshots).');
    expect(md).toContain('- **Fired:** turns 10–21, on 12 snapshots');
    expect(md).toContain('([§4.5](docs/contract.md#45-stale_score-fault))');
    expect(md).toContain("> At least one span's `text_sha256` is a non-empty string");
    expect(md).toContain('| 2 | `unreported_rewrite` | fault | turn 12 | 1 |');
    expect(md).toContain('| turns 10–21 | `recompute` | `m18`, `m19`, `m20` | recompute the listed spans');
    expect(md).toContain('| turn 15 | `drop` | `m7` | drop the listed spans; do not rescore them |');
    expect(md).toContain('| **spread_floor** | 0.1 | 0.08 |');
    expect(md).toContain('| max_rewrites | 2 | 2 |');
    expect(md).toContain('![Score spread](images/spread.png)');
    expect(md).toContain('| `m19` | 10 | 0.7721 | stale | 1 | no |');
  });

  it('never lets input become markup: HTML, links, table cells and code spans stay text', () => {
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\<script\\>');
    expect(md).not.toMatch(/[^\\]!\[x\]/);
    expect(md).toContain('\\| col');
    expect(md).toContain('Session ``run`42`` (A \\*title\\*)');
    expect(mdCode('`a`')).toBe('`` `a` ``');
  });

  it('shortens long texts on one line', () => {
    expect(shorten('a\n\n b '.repeat(100), 20)).toHaveLength(20);
    expect(shorten('a\n\n b ', 20)).toBe('a b');
  });

  it('lists every incident in full when the report is about turns', () => {
    const turns = reportMarkdown({ ...data, scope: { kind: 'turns', from: 5, to: 26 }, focus: null, incidents: [incident(1), incident(2)] }, []);
    expect(turns).toMatch(/^# Turns 5–26/);
    expect(turns.match(/^### \d+\. `stale_score` \(fault\), turns 10–21$/gm)).toHaveLength(2);
    expect(turns).not.toContain('## Charts');
  });

  it('details the first incidents in full and lists the rest as rows', () => {
    const many = Array.from({ length: MAX_DETAILED_INCIDENTS + 3 }, (_, i) => incident(i + 1, { spans: i < MAX_DETAILED_INCIDENTS ? incident(1).spans : [] }));
    const text = reportMarkdown({ ...data, scope: { kind: 'session' }, focus: null, incidents: many }, []);
    expect(text.match(/^### \d+\. /gm)).toHaveLength(MAX_DETAILED_INCIDENTS);
    expect(text).toContain('### 3 more incidents');
    expect(text).toContain(`| ${MAX_DETAILED_INCIDENTS + 3} | \`stale_score\` | fault | turns 10–21 | 12 |`);
  });
});

describe('stamp', () => {
  const stamp: Stamp = {
    product: 'context-health',
    version: '0.1.0',
    figure: 'spread',
    session_id: 'run\u001b[31m42',
    title: '<b>t</b>',
    turns: { from: 5, to: 26 },
    selected_turn: 10,
    signals: ['unreported_rewrite', 'stale_score'],
    thresholds: nonDefaultThresholds({ ...DEFAULT_THRESHOLDS, spread_floor: 0.1, min_scored: 20 }),
    source: { kind: 'relay', url: 'http://127.0.0.1:8787/api/sessions/run', seq_from: 1, seq_to: 480 },
    exported_at: '2026-11-30T14:00:00.123Z',
  };

  it('keeps only the thresholds that differ from the defaults, and orders signals as contract §4', () => {
    expect(stamp.thresholds).toEqual({ min_scored: 20, spread_floor: 0.1 });
    const back = parseStamp(stampJson(stamp));
    expect(back.signals).toEqual(['stale_score', 'unreported_rewrite']);
    expect(Object.keys(back)).toEqual([
      'product',
      'version',
      'figure',
      'session_id',
      'title',
      'turns',
      'selected_turn',
      'signals',
      'thresholds',
      'source',
      'exported_at',
    ]);
    expect(() => parseStamp('{"product":"other"}')).toThrow(/product/);
  });

  it('says the same facts in its caption, control characters made visible', () => {
    const text = captionLines(stamp).join('\n');
    expect(text).toContain('Session run\ufffd[31m42 “<b>t</b>” · turns 5–26 · selected turn 10');
    expect(text).toContain('thresholds: min_scored=20, spread_floor=0.1');
    expect(text).toContain('Source: http://127.0.0.1:8787/api/sessions/run seq 1–480 · context-health 0.1.0 · exported 2026-11-30T14:00:00Z');
    const file = captionLines({ ...stamp, source: { kind: 'file', name: 'a.jsonl', sha256: '0123456789abcdef'.repeat(4) }, exported_at: null }).join('\n');
    expect(file).toContain('Source: a.jsonl (sha256 0123456789ab) · context-health 0.1.0');
    expect(file).not.toContain('exported');
  });

  it('escapes input in the figure SVG', () => {
    const fig = figureSvg({
      chartSvg: '<svg width="600" height="200"><g/></svg>',
      chartWidth: 600,
      chartHeight: 200,
      title: 'T & <x>',
      subtitle: 's',
      legend: [{ label: '<i>', color: '#000', kind: 'dot' }],
      stamp,
    });
    expect(fig.svg).not.toContain('<b>');
    expect(fig.svg).not.toContain('<i>');
    expect(fig.svg).not.toContain('\u001b');
    expect(fig.svg).toContain('T &amp; &lt;x&gt;');
    expect(fig.width).toBe(600);
  });
});

describe('the stamp said once (issue 24: not the same caption under every chart)', () => {
  const stamp: Stamp = {
    product: 'context-health',
    version: '0.1.0',
    figure: 'spread',
    session_id: 'run-42',
    title: null,
    turns: { from: 5, to: 26 },
    selected_turn: 10,
    signals: ['stale_score'],
    thresholds: {},
    source: { kind: 'file', name: 'a.jsonl', sha256: null },
    exported_at: null,
  };
  const images = ['spread', 'canary', 'drift'].map((id) => ({ file: `images/${id}.png`, title: id }));

  it('gives the shared stamp once, above the charts, each chart keeping its own heading', () => {
    const md = reportMarkdown(data, images, undefined, captionLines(stamp));
    const charts = md.slice(md.indexOf('## Charts'));
    expect(charts.match(/\*\*About these figures\*\*/g)).toHaveLength(1);
    for (const line of captionLines(stamp)) expect(charts.split(line.replace(/_/g, '\\_')).length - 1, line).toBe(1);
    expect(charts.indexOf('About these figures')).toBeLessThan(charts.indexOf('### spread'));
    expect(charts.match(/^### (spread|canary|drift)$/gm)).toHaveLength(3);
  });

  it('draws a one-line caption under the figure in place of the strip', () => {
    const parts = { chartSvg: '<svg width="600" height="200"><g/></svg>', chartWidth: 600, chartHeight: 200, title: 'T', subtitle: 's', legend: [], stamp };
    const full = figureSvg(parts);
    const line = figureSvg({ ...parts, caption: 'line' });
    expect(full.svg).toContain('Source: a.jsonl');
    expect(line.svg).not.toContain('Source: a.jsonl');
    expect(line.svg).toContain('Session run-42 · turns 5–26 · selected turn 10 · full stamp');
    expect(line.height).toBeLessThan(full.height);
  });

  it('keeps the strip on every image when no shared stamp is given', () => {
    const md = reportMarkdown(data, images);
    expect(md).not.toContain('About these figures');
    expect(md).toContain('each image carries its stamp');
  });
});

describe('compaction report Markdown (contract §8.3)', () => {
  const compaction: NonNullable<ReportData['compaction']> = {
    turn: 160,
    kind: 'compact',
    trigger: 'auto',
    tokens_before: 167012,
    tokens_after: 31002,
    agent_tokens_before: 167500,
    spans_replaced: 451,
    summary_span_ids: ['u9#0'],
    summary_text: `The user asked for batching. ${HOSTILE}\n\`\`\`\nnot a fence end`,
    items: [
      { kind: 'file', text: '/repo/a|b.ts', status: 'kept', from_turn: 3, span_id: 'a3#1', refetched_at: null, confirmed: false },
      { kind: 'user_prompt', text: HOSTILE, status: 'paraphrased', from_turn: 1, span_id: 'u1#0', refetched_at: null, confirmed: false },
      { kind: 'file', text: '/repo/lost.ts', status: 'lost', from_turn: 12, span_id: null, refetched_at: null, confirmed: false },
      { kind: 'file', text: '/repo/needed.ts', status: 'lost', from_turn: 14, span_id: 'a14#0', refetched_at: 171, confirmed: true },
    ],
    carried: [{ kind: 'user_prompt', text: 'keep the API', status: 'kept', from_turn: 1, span_id: 'u1#0', first_audited_at: 80 }],
    retention: {
      file: { items: 3, kept: 1, paraphrased: 0, lost: 2, confirmed: 1 },
      user_prompt: { items: 1, kept: 0, paraphrased: 1, lost: 0, confirmed: 0 },
    },
  };
  const md = reportMarkdown({ ...data, scope: { kind: 'turns', from: 155, to: 165 }, focus: null, compaction }, []);

  it('is titled by the compaction and gives its figures and retention per kind', () => {
    expect(md).toMatch(/^# Compaction at turn 160\n/);
    expect(md).toContain('- **Tokens:** 167,012 before → 31,002 after (the agent counted 167,500)');
    expect(md).toContain('- **Spans replaced:** 451');
    expect(md).toContain('| file | 3 | 1 | 0 | 2 | 1 |');
  });

  it('lists the items lost first, the confirmed loss first among them, every cell escaped', () => {
    const rows = md.split('\n').filter((l) => /^\| (lost|paraphrased|kept) \|/.test(l));
    expect(rows[0]).toBe('| lost | **yes** | file | /repo/needed.ts | 14 | `a14#0` | 171 |');
    expect(rows[1]).toBe('| lost |  | file | /repo/lost.ts | 12 |  |  |');
    expect(rows).toContain('| kept |  | file | /repo/a\\|b.ts | 3 | `a3#1` |  |');
    // outside the summary's fence, input is never markup
    expect(md.slice(md.indexOf('### Items'))).not.toContain('<script>');
    expect(md).toContain('| paraphrased |  | user_prompt | ignore \\<script\\>alert(1)\\</script\\>');
    expect(md).toContain('| kept | user_prompt | keep the API | 80 | 1 |');
  });

  it('holds the summary in a fence longer than any backtick run in it', () => {
    expect(md).toContain('````text\nThe user asked for batching.');
    expect(md).toContain('```\nnot a fence end\n````');
  });
});

describe("compaction report Markdown: items past the audit's cap (contract §8.4)", () => {
  const base: NonNullable<ReportData['compaction']> = {
    turn: 9,
    kind: 'compact',
    trigger: 'auto',
    tokens_before: 900,
    tokens_after: 100,
    agent_tokens_before: null,
    spans_replaced: 3,
    summary_span_ids: [],
    summary_text: '',
    items: [],
    carried: [{ kind: 'file', text: '/s0/x', status: 'kept', from_turn: 1, span_id: null, first_audited_at: 2 }],
    retention: {},
  };
  const md = (c: NonNullable<ReportData['compaction']>): string =>
    reportMarkdown({ ...data, scope: { kind: 'turns', from: 1, to: 9 }, focus: null, compaction: c }, []);

  it('says how many earlier items were not judged again, and nothing when none were', () => {
    expect(md({ ...base, carried_not_followed: 2 })).toContain(
      '_2 more items of earlier compactions were not judged again: the audit follows at most 1,000 from one compaction to the next._',
    );
    expect(md({ ...base, carried_not_followed: 1 })).toContain('_1 more item of earlier compactions was not judged again:');
    expect(md(base)).not.toContain('not judged again');
  });
});

describe('the report of a session where no score detector ran (contract §8.1)', () => {
  const images: ReportImage[] = ['composition', 'spread', 'canary', 'drift', 'orphans'].map((id) => ({ id, file: `images/${id}.png`, title: `chart ${id}` }));
  const agent: ReportData = {
    ...data,
    scope: { kind: 'session' },
    focus: null,
    incidents: [],
    verdicts: [],
    context: { turn: 150, text: 'CONTEXT OK: 2 compactions, no confirmed loss' },
    compactions: {
      rows: [
        {
          number: 1,
          turn: 40,
          line: 'turn 40: 150,000 → 20,000 tokens, 300 spans replaced; the next call still names 3 of 5 files (2 dropped, 1 of them read again)',
        },
        { number: 2, turn: 90, line: 'turn 90: 140,000 → 21,000 tokens, 280 spans replaced' },
      ],
      total: 2,
    },
  };

  it('opens on its compactions, one row each, before the incidents', () => {
    const md = reportMarkdown(agent, images);
    expect(md.indexOf('## Compactions')).toBeGreaterThan(md.indexOf('**Headline at turn 150**'));
    expect(md.indexOf('## Compactions')).toBeLessThan(md.indexOf('## Incidents in these turns'));
    expect(md).toContain('2 compactions in these turns (contract §8.3)');
    expect(md).toContain(
      '| 1 | turn 40: 150,000 → 20,000 tokens, 300 spans replaced; the next call still names 3 of 5 files (2 dropped, 1 of them read again) |',
    );
    expect(md).toContain('| 2 | turn 90: 140,000 → 21,000 tokens, 280 spans replaced |');
    const none = reportMarkdown({ ...agent, compactions: { rows: [], total: 0 } }, images);
    expect(none).toContain('## Compactions\n\nNone in these turns: the context was not rewritten.');
    const capped = reportMarkdown({ ...agent, compactions: { rows: agent.compactions!.rows, total: 75 } }, images);
    expect(capped).toContain('… and 73 more (`check --json` lists every one).');
  });

  it('puts what was measured first and the reference scorer’s charts after a line that says no detector reads them', () => {
    const md = reportMarkdown(agent, images);
    const order = [...md.matchAll(/^### chart (\w+)$/gm)].map((m) => m[1]);
    expect(order).toEqual(['composition', 'orphans', 'spread', 'canary', 'drift']);
    const said = md.indexOf(REFERENCE_CHARTS_WORDS);
    expect(said).toBeGreaterThan(md.indexOf('### chart orphans'));
    expect(said).toBeLessThan(md.indexOf('### chart spread'));
    const html = reportHtml(
      agent,
      images.map((i) => ({ id: i.id!, title: i.title, svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' })),
    );
    expect([...html.matchAll(/data-figure="chart (\w+)"/g)].map((m) => m[1])).toEqual(['composition', 'orphans', 'spread', 'canary', 'drift']);
    expect(html).toContain('<h2>Compactions</h2>');
    expect(html).toContain('<td>turn 90: 140,000 → 21,000 tokens, 280 spans replaced</td>');
  });

  it('a scored session keeps its charts in the dashboard’s order, with no Compactions table and no such line', () => {
    const md = reportMarkdown(data, images);
    expect([...md.matchAll(/^### chart (\w+)$/gm)].map((m) => m[1])).toEqual(['composition', 'spread', 'canary', 'drift', 'orphans']);
    expect(md).not.toContain('## Compactions');
    expect(md).not.toContain(REFERENCE_CHARTS_WORDS);
  });
});
