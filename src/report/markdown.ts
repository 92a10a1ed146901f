// The incident report as Markdown (issue "Incident reports", items 3 and 4): what fired,
// how badly, where, on which spans, what the verdicts told the harness to do, the contract
// rule that fired, the thresholds in force, and the stamped charts beside it. The
// dashboard's "Report this incident" and `context-health report` build it from the same
// ReportData (src/report/reportData.ts makes one from a session's columns).
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, type Thresholds } from '../core/config.ts';
import type { RecordItem } from '../core/compactions.ts';
import type { Action, Severity, Signal } from '../core/signals.ts';
import { carriedNotFollowedWords, ENCRYPTED_SUMMARY_WORDS } from './compactionWords.ts';
import { rangeAdvice } from './headline.ts';
import { RULES } from './rules.ts';
import { SIGNAL_INFO } from './signalInfo.ts';
import { printable, sourceText, type StampSource } from './stamp.ts';
import { appendAll, maxOf } from '../core/arrays.ts';
import { joinedPieces } from './pieces.ts';
import { capText, leftOutWords, QUOTE_MAX, type ReportCompaction } from './quoteCap.ts';
import { groupedDigits } from '../core/digits.ts';

/** A span named by an incident, as it stood on the incident's first turn it was live. */
export interface ReportSpan {
  id: string;
  /** the turn the text, score and binding are from */
  turn: number;
  /** its text, up to TEXT_MAX characters (quoteCap.ts; shown shortened to SHORT_TEXT); null when the text is no longer held */
  text: string | null;
  /** characters of the text past TEXT_MAX, not carried; absent when none */
  textLeftOut?: number;
  score: number | null;
  /** contract §4.3: bound, unscored, unbound or stale */
  binding: string;
  rewrites: number;
  pinned: boolean;
}

export interface ReportIncident {
  /** 1-based number among the session's incidents (by first turn, then contract §4 order) */
  number: number;
  signal: Signal;
  severity: Severity;
  firstTurn: number;
  lastTurn: number;
  /** snapshots it fired on */
  findings: number;
  /** the first finding's message */
  message: string;
  spans: ReportSpan[];
  /** span ids named beyond those listed in `spans` */
  moreSpans: number;
}

export interface ReportVerdictRun {
  action: Action | 'drop';
  firstTurn: number;
  lastTurn: number;
  turns: number;
  /** the spans named on the run's first turn (recompute or drop) */
  spans: string[];
}

export interface ReportImage {
  /** file name beside the Markdown */
  file: string;
  title: string;
  /** an SVG twin, when written */
  svgFile?: string;
  /** the chart's id (`spread`, `composition`, …), when known: a reference-score chart is placed last on a session where no score detector ran */
  id?: string;
}

/**
 * The charts of scores (contract §6.3): on a session where no score detector ran (§8.1) they
 * show the reference scorer's scores (§7), which no detector reads there, so a report puts
 * them after what was measured and says so, as the dashboard folds them (AgentSections.tsx).
 */
export const REFERENCE_SCORE_CHARTS: ReadonlySet<string> = new Set(['spread', 'agreement', 'canary', 'drift']);

/** What a report says above the reference-score charts of a session where no score detector ran. */
export const REFERENCE_CHARTS_WORDS =
  'No score detector ran on this session (contract §8.1). The charts below show the scores the reference scorer gave its spans (§7): no detector reads them here, and no verdict comes from them.';

/** The charts in the order a report shows them: on a session where no score detector ran, the reference-score charts last (split off). */
export function chartsInOrder<T extends { id?: string }>(data: Pick<ReportData, 'context'>, charts: readonly T[]): { measured: T[]; reference: T[] } {
  if (data.context === undefined) return { measured: [...charts], reference: [] };
  const isReference = (c: T): boolean => c.id !== undefined && REFERENCE_SCORE_CHARTS.has(c.id);
  return { measured: charts.filter((c) => !isReference(c)), reference: charts.filter(isReference) };
}

/** One compaction of a session where no score detector ran, as the report's Compactions table lists it. */
export interface ReportCompactionRow {
  /** its number among the session's compactions: `report --compaction N` */
  number: number;
  turn: number;
  /** compactionWords.ts compactionLine: what the first call after it still holds */
  line: string;
}

export interface ReportData {
  sessionId: string;
  title: string | null;
  source: StampSource;
  version: string;
  /** what the report is about */
  scope: { kind: 'incident'; number: number } | { kind: 'turns'; from: number; to: number } | { kind: 'session' };
  /** the turns the report and its charts cover */
  range: { from: number; to: number };
  session: { firstTurn: number; lastTurn: number; turns: number };
  /** snapshots in the range */
  turnsInRange: number;
  /** the incident the report is about (scope incident), else null */
  focus: ReportIncident | null;
  /** every incident overlapping the range (for scope incident: the others) */
  incidents: ReportIncident[];
  /** runs of turns in the range whose verdict was not prune_ok, and of drops */
  verdicts: ReportVerdictRun[];
  thresholds: Thresholds;
  /** UTC ISO time, or null (reproducible output) */
  exportedAt: string | null;
  /** the compaction the report is about ("Report this compaction", contract §8.3), when it is about one */
  compaction?: ReportCompaction;
  /** contract §8.8: span id → label for the spans the report names that have one (absent: none has) */
  labels?: Record<string, string>;
  /**
   * contract §8.9: a session where no score detector ran (§8.1): its headline at the last turn
   * of the range. Absent for every other session, whose report is unchanged. With it the span
   * tables leave out the reference scorer's scores and bindings, and no verdict is told.
   */
  context?: { turn: number; text: string };
  /**
   * With `context` (a session where no score detector ran), unless the report is about one
   * compaction: the compactions that took effect in the range, at most MAX_COMPACTION_ROWS of
   * them, and how many there were. What was measured there comes first in the report.
   */
  compactions?: { rows: ReportCompactionRow[]; total: number };
}

/** A report lists at most this many compactions in its Compactions table; `check --json` has them all. */
export const MAX_COMPACTION_ROWS = 50;

/** contract §8.9: the line of a report on a session where no score detector ran. */
export function contextReportLine(context: { turn: number }): string {
  return `No score verdict: the score detectors do not apply to this session (contract §8.1); its headline at turn ${context.turn} says what was measured.`;
}

/** A report about turns details this many incidents in full (spans, rule); the rest are rows of a table. */
export const MAX_DETAILED_INCIDENTS = 30;

/** The longest span text quoted in a report. */
export const SHORT_TEXT = 160;

export function shorten(text: string, max = SHORT_TEXT): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Markdown-safe inline text: input never becomes markup (links, HTML, emphasis, tables). */
export function mdText(text: string): string {
  return printable(text).replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

/** Inline code holding any text: a fence longer than any backtick run in it. */
export function mdCode(text: string): string {
  const t = printable(text);
  const longest = maxOf(
    (t.match(/`+/g) ?? []).map((r) => r.length),
    0,
  );
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || t === '' ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

type SpanLabelMap = Readonly<Record<string, string>>;

/** contract §8.8: a span named by its label, its id beside it (a report is read by people and searched by id). */
export function spanCell(id: string, labels: SpanLabelMap | undefined): string {
  const label = labels?.[id];
  // mdCodeCell: an id holding `|` must not forge cells (docs/security.md)
  return label === undefined ? mdCodeCell(id) : `${mdText(shorten(label, 60))} ${mdCodeCell(id)}`;
}

/** A fenced block holding any text: a fence longer than any backtick run in it, so nothing inside becomes markup. */
export function mdFence(text: string): string {
  // its lines kept (a summary is prose in paragraphs), every other control character made visible
  const t = text.split(/\r?\n/).map(printable).join('\n');
  const longest = maxOf(
    (t.match(/`+/g) ?? []).map((r) => r.length),
    0,
  );
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${t}\n${fence}`;
}

/**
 * An id inside a table cell. GFM splits a row at every `|` not escaped with `\`, code
 * spans included, so a span id `a | bound | yes` would forge cells; and inside a code span
 * a `\` is literal, so no escape there can hold a `\|`. An id with a `|` is therefore
 * shown as escaped text (every `\` and `|` escaped), any other as inline code.
 */
export function mdCodeCell(text: string): string {
  return text.includes('|') ? mdText(text) : mdCode(text);
}

const turnsText = (a: number, b: number): string => (a === b ? `turn ${a}` : `turns ${a}–${b}`);
const scoreText = (s: number | null): string => (s === null ? 'null' : String(Number(s.toFixed(4))));

export const ACTION_TODO: Readonly<Record<ReportVerdictRun['action'], string>> = {
  prune_ok: 'prune as usual',
  recompute: 'recompute the listed spans (and their neighbours) before pruning',
  freeze: 'halt pruning and carry the full context forward',
  drop: 'drop the listed spans; do not rescore them',
};

export const CONTRACT_URL = 'docs/contract.md';

/**
 * Where a report shared beyond this checkout links the contract: the project's published
 * copy, never a path of the machine that made it (issue 24: `../../../…/docs/contract.md`
 * broke once the report was sent on). `context-health report` uses it.
 */
export const STABLE_CONTRACT_URL = 'https://github.com/context-health/context-health/blob/main/docs/contract.md';

/** A fault fired in the report's turns (the incident it is about, or another): the verdict table must not say "prune as usual" then. */
export function faultInRange(data: Pick<ReportData, 'focus' | 'incidents'>): boolean {
  return (data.focus !== null && data.focus.severity === 'fault') || data.incidents.some((i) => i.severity === 'fault');
}

function incidentSection(inc: ReportIncident, heading: string, contractUrl: string, labels: SpanLabelMap = {}, scored = true): string[] {
  const info = SIGNAL_INFO[inc.signal];
  const rule = RULES[inc.signal];
  const out: string[] = [
    heading,
    '',
    `- **Signal:** \`${inc.signal}\` (${info.title}), severity **${inc.severity}**`,
    `- **Fired:** ${turnsText(inc.firstTurn, inc.lastTurn)}, on ${inc.findings} snapshot${inc.findings === 1 ? '' : 's'}`,
    `- **First finding:** ${mdText(inc.message)}`,
    `- **What it means:** ${info.means}`,
    `- **What the harness should do:** ${info.todo}`,
    `- **Contract rule** ([§${rule.section}](${contractUrl}#${rule.anchor})):`,
    '',
    `  > ${rule.rule}`,
    '',
  ];
  if (inc.spans.length > 0 && !scored) {
    // contract §8.9: the reference scorer's scores and bindings are not what this session is judged by
    out.push('| span | turn | rewrites | pinned | text (shortened) |', '| --- | ---: | ---: | --- | --- |');
    for (const s of inc.spans)
      out.push(
        `| ${spanCell(s.id, labels)} | ${s.turn} | ${s.rewrites} | ${s.pinned ? 'yes' : 'no'} | ${s.text === null ? '*(text no longer held)*' : mdText(shorten(s.text))} |`,
      );
    if (inc.moreSpans > 0) out.push('', `… and ${inc.moreSpans} more span${inc.moreSpans === 1 ? '' : 's'}.`);
    out.push('');
  } else if (inc.spans.length > 0) {
    out.push('| span | turn | score | binding | rewrites | pinned | text (shortened) |', '| --- | ---: | ---: | --- | ---: | --- | --- |');
    for (const s of inc.spans) {
      out.push(
        `| ${spanCell(s.id, labels)} | ${s.turn} | ${scoreText(s.score)} | ${s.binding} | ${s.rewrites} | ${s.pinned ? 'yes' : 'no'} | ${s.text === null ? '*(text no longer held)*' : mdText(shorten(s.text))} |`,
      );
    }
    if (inc.moreSpans > 0) out.push('', `… and ${inc.moreSpans} more span${inc.moreSpans === 1 ? '' : 's'}.`);
    out.push('');
  } else out.push('No span named (the signal is about the whole snapshot).', '');
  return out;
}

/** Lost first (confirmed ones first among them), then the ones that could not be judged, then paraphrased, then kept: what a person debugging a lost thread reads first. */
export const STATUS_ORDER: Readonly<Record<RecordItem['status'], number>> = { lost: 0, unknown: 1, paraphrased: 2, kept: 3 };

export function lostFirst<T extends { status: RecordItem['status']; confirmed?: boolean }>(items: readonly T[]): T[] {
  return items
    .map((it, i) => ({ it, i }))
    .sort((a, b) => STATUS_ORDER[a.it.status] - STATUS_ORDER[b.it.status] || Number(b.it.confirmed === true) - Number(a.it.confirmed === true) || a.i - b.i)
    .map((x) => x.it);
}

const tokens = (n: number | null): string => (n === null ? '—' : groupedDigits(n));

/** contract §8.3–§8.4: the compaction's figures, its summary and every audited item (cells escaped: item texts are input), line by line. */
function* compactionSection(r: ReportCompaction, labels: SpanLabelMap = {}): Generator<string> {
  yield* [
    '## The compaction',
    '',
    `- **Took effect:** turn ${r.turn} (${mdText(r.kind)}${r.trigger === null ? '' : `, trigger ${mdText(r.trigger)}`})`,
    `- **Tokens:** ${tokens(r.tokens_before)} before → ${tokens(r.tokens_after)} after${r.agent_tokens_before === null ? '' : ` (the agent counted ${tokens(r.agent_tokens_before)})`}`,
    `- **Spans replaced:** ${r.spans_replaced}`,
    '',
  ];
  const kinds = Object.entries(r.retention);
  // contract §8.4 `unknown`: a column only where some item could not be judged, so other reports read as before
  const unknown = kinds.some(([, k]) => k.unknown !== undefined);
  if (kinds.length > 0) {
    yield `| kind | items | kept | paraphrased | lost |${unknown ? ' unknown |' : ''} confirmed losses |`;
    yield `| --- | ---: | ---: | ---: | ---: |${unknown ? ' ---: |' : ''} ---: |`;
    for (const [kind, k] of kinds)
      yield `| ${kind} | ${k.items} | ${k.kept} | ${k.paraphrased} | ${k.lost} |${unknown ? ` ${k.unknown ?? 0} |` : ''} ${k.confirmed} |`;
    yield '';
  }
  yield* ['### Summary', ''];
  if (r.summary_state === 'encrypted') yield* [`${ENCRYPTED_SUMMARY_WORDS[0]!.toUpperCase()}${ENCRYPTED_SUMMARY_WORDS.slice(1)}.`, ''];
  else if (r.summary_text === '') yield* ['No summary: the compaction left no summary text.', ''];
  else {
    // docs/security.md "Hostile transcripts": a huge summary is quoted up to QUOTE_MAX characters,
    // and the rest counted (cut already when the data was made, quoteCap.ts, or here)
    const quoted = capText(r.summary_text, QUOTE_MAX);
    const left = (r.summary_left_out ?? 0) + quoted.leftOut;
    yield* [mdFence(quoted.text), ''];
    if (left > 0)
      yield* [`_${leftOutWords(left)}: a report quotes at most ${groupedDigits(QUOTE_MAX)} characters of a summary; the whole text is in the transcript._`, ''];
  }
  yield* ['### Items', ''];
  if (r.items.length === 0) yield* ['No load-bearing item was audited (a microcompaction keeps every call, so it has none).', ''];
  else {
    yield* ['| status | confirmed | kind | item | from turn | span | gone back for at |', '| --- | --- | --- | --- | ---: | --- | ---: |'];
    for (const it of lostFirst(r.items)) {
      yield `| ${it.status} | ${it.confirmed ? '**yes**' : ''} | ${it.kind} | ${mdText(shorten(it.text))} | ${it.from_turn} | ${it.span_id === null ? '' : spanCell(it.span_id, labels)} | ${it.refetched_at ?? ''} |`;
    }
    yield '';
  }
  if (r.carried.length > 0) {
    yield* ['### Carried from earlier compactions', '', '| status | kind | item | first audited at | from turn |', '| --- | --- | --- | ---: | ---: |'];
    for (const it of lostFirst(r.carried)) yield `| ${it.status} | ${it.kind} | ${mdText(shorten(it.text))} | ${it.first_audited_at} | ${it.from_turn} |`;
    yield '';
  }
  // contract §8.4: the audit follows at most CARRIED_MAX items from one compaction to the next (the dashboard's panel says the same words)
  const notFollowed = carriedNotFollowedWords(r.carried_not_followed);
  if (notFollowed !== null) yield* [`_${notFollowed}_`, ''];
}

/**
 * The report as Markdown. `contractUrl`: where links to the contract point (a path beside the
 * repo, or a URL). `stampLines`: the stamp every image shares (stamp.ts `captionLines`),
 * said once above the charts; each image then carries its one-line caption (figure.ts
 * `caption: 'line'`) instead of repeating the strip (issue 24).
 */
export function reportMarkdown(data: ReportData, images: readonly ReportImage[], contractUrl = CONTRACT_URL, stampLines: readonly string[] = []): string {
  return [...reportMarkdownPieces(data, images, contractUrl, stampLines)].join('');
}

/**
 * The same text in pieces of about PIECE_CHARS (issue 39, "Output streams"): what `report`
 * writes to report.md, never one string. Joined, they are reportMarkdown's text.
 */
export function reportMarkdownPieces(
  data: ReportData,
  images: readonly ReportImage[],
  contractUrl = CONTRACT_URL,
  stampLines: readonly string[] = [],
): Generator<string> {
  return joinedPieces(reportMarkdownLines(data, images, contractUrl, stampLines), '\n');
}

/** The report's lines, in order, each without its "\n"; `out` holds a section's lines until they are yielded. */
function* reportMarkdownLines(data: ReportData, images: readonly ReportImage[], contractUrl: string, stampLines: readonly string[]): Generator<string> {
  const title = data.title === null || data.title === '' ? '' : ` (${mdText(data.title)})`;
  const what =
    data.compaction !== undefined
      ? `Compaction at turn ${data.compaction.turn}`
      : data.focus !== null
        ? `Incident ${data.focus.number}: \`${data.focus.signal}\` (${data.focus.severity}), ${turnsText(data.focus.firstTurn, data.focus.lastTurn)}`
        : data.scope.kind === 'turns'
          ? `Turns ${data.range.from}–${data.range.to}`
          : 'Whole session';
  const out: string[] = [
    `# ${what}`,
    '',
    `Session ${mdCode(data.sessionId)}${title}: ${data.session.turns} snapshots, turns ${data.session.firstTurn}–${data.session.lastTurn}.`,
    `This report covers ${turnsText(data.range.from, data.range.to)} (${data.turnsInRange} snapshot${data.turnsInRange === 1 ? '' : 's'}).`,
    '',
    `- **Source:** ${mdText(sourceText(data.source))}`,
    `- **Made by:** context-health ${data.version}${data.exportedAt === null ? '' : `, ${data.exportedAt}`}`,
    '',
  ];
  const scored = data.context === undefined;
  if (data.context !== undefined) out.push(`**Headline at turn ${data.context.turn}** (contract §8.9): ${mdText(data.context.text)}`, '');
  if (data.compactions !== undefined) appendAll(out, compactionsTable(data.compactions));
  yield* drain(out);
  if (data.compaction !== undefined) yield* compactionSection(data.compaction, data.labels);
  if (data.focus !== null) yield* incidentSection(data.focus, '## What fired', contractUrl, data.labels, scored);

  out.push(data.focus !== null ? '## Other incidents in these turns' : '## Incidents in these turns', '');
  if (data.incidents.length === 0) out.push(data.focus !== null ? 'None.' : 'None: every turn in this range looks healthy.', '');
  else if (data.focus !== null) {
    out.push('| # | signal | severity | turns | snapshots |', '| ---: | --- | --- | --- | ---: |');
    for (const inc of data.incidents)
      out.push(`| ${inc.number} | \`${inc.signal}\` | ${inc.severity} | ${turnsText(inc.firstTurn, inc.lastTurn)} | ${inc.findings} |`);
    out.push('');
  } else {
    for (const inc of data.incidents.slice(0, MAX_DETAILED_INCIDENTS)) {
      yield* drain(out);
      yield* incidentSection(
        inc,
        `### ${inc.number}. \`${inc.signal}\` (${inc.severity}), ${turnsText(inc.firstTurn, inc.lastTurn)}`,
        contractUrl,
        data.labels,
        scored,
      );
    }
    const rest = data.incidents.slice(MAX_DETAILED_INCIDENTS);
    if (rest.length > 0) {
      out.push(
        `### ${rest.length} more incident${rest.length === 1 ? '' : 's'}`,
        '',
        '| # | signal | severity | turns | snapshots |',
        '| ---: | --- | --- | --- | ---: |',
      );
      for (const inc of rest) out.push(`| ${inc.number} | \`${inc.signal}\` | ${inc.severity} | ${turnsText(inc.firstTurn, inc.lastTurn)} | ${inc.findings} |`);
      out.push('');
    }
  }

  yield* drain(out);
  out.push('## Verdicts', '');
  if (data.context !== undefined) out.push(contextReportLine(data.context), '');
  else if (data.verdicts.length === 0) out.push(`\`prune_ok\` on every turn of this range: ${rangeAdvice(faultInRange(data))}.`, '');
  else {
    out.push('| turns | verdict | spans (first turn) | what the harness should do |', '| --- | --- | --- | --- |');
    for (const v of data.verdicts) {
      const spans =
        v.spans.length === 0
          ? ''
          : v.spans
              .slice(0, 8)
              .map((id) => spanCell(id, data.labels))
              .join(', ') + (v.spans.length > 8 ? ` (+${v.spans.length - 8})` : '');
      out.push(`| ${turnsText(v.firstTurn, v.lastTurn)} | \`${v.action}\` | ${spans} | ${ACTION_TODO[v.action]} |`);
    }
    out.push('');
  }

  yield* drain(out);
  out.push('## Thresholds in force', '', '| threshold | value | default |', '| --- | ---: | ---: |');
  for (const key of THRESHOLD_KEYS) {
    const changed = data.thresholds[key] !== DEFAULT_THRESHOLDS[key];
    out.push(`| ${changed ? `**${key}**` : key} | ${data.thresholds[key]} | ${DEFAULT_THRESHOLDS[key]} |`);
  }
  out.push('');

  if (images.length > 0) {
    out.push(
      '## Charts',
      '',
      stampLines.length === 0
        ? `Zoomed to ${turnsText(data.range.from, data.range.to)}; each image carries its stamp (caption strip, and JSON in the PNG's \`context-health\` iTXt chunk).`
        : `Zoomed to ${turnsText(data.range.from, data.range.to)}. Each image has a one-line caption; its whole stamp is below, once for all of them (and as JSON in each PNG's \`context-health\` iTXt chunk).`,
      '',
    );
    if (stampLines.length > 0) appendAll(out, ['**About these figures**', '', ...stampLines.map((l) => `- ${mdText(l)}`), '']);
    const { measured, reference } = chartsInOrder(data, images);
    const image = (img: ReportImage): void => {
      out.push(`### ${img.title}`, '', `![${img.title}](${encodeURI(img.file)})`, '');
      if (img.svgFile !== undefined) out.push(`[SVG](${encodeURI(img.svgFile)})`, '');
    };
    measured.forEach(image);
    if (reference.length > 0) out.push('### The reference scorer’s scores', '', REFERENCE_CHARTS_WORDS, '');
    reference.forEach(image);
  }
  yield* out;
}

/** contract §8.3: a session where no score detector ran opens on its compactions, one row each (no text of the input in them). */
function compactionsTable(c: NonNullable<ReportData['compactions']>): string[] {
  const lines = ['## Compactions', ''];
  if (c.total === 0) return [...lines, 'None in these turns: the context was not rewritten.', ''];
  lines.push(
    `${c.total} compaction${c.total === 1 ? '' : 's'} in these turns (contract §8.3), each with what the first call after it still holds (§8.4). The summary and every audited item of one: \`context-health report <file> --compaction N\`.`,
    '',
    '| N | compaction |',
    '| ---: | --- |',
  );
  for (const r of c.rows) lines.push(`| ${r.number} | ${mdText(r.line)} |`);
  if (c.total > c.rows.length) lines.push('', `… and ${c.total - c.rows.length} more (\`check --json\` lists every one).`);
  lines.push('');
  return lines;
}

/** The lines held so far, yielded and let go. */
function* drain(out: string[]): Generator<string> {
  yield* out.splice(0);
}
