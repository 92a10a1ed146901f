// `context-health report --format html`: one self-contained file (styles, figures as inline
// SVG, the report's data as JSON) that opens offline in any browser, the attachment for a
// ticket. The same sections as the Markdown (markdown.ts), from the same ReportData. Every
// text from the input is escaped: no markup, no script runs from it.
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS } from '../core/config.ts';
import { escapeXml } from './figure.ts';
import { rangeAdvice } from './headline.ts';
import {
  ACTION_TODO,
  chartsInOrder,
  CONTRACT_URL,
  contextReportLine,
  faultInRange,
  MAX_DETAILED_INCIDENTS,
  REFERENCE_CHARTS_WORDS,
  shorten,
  type ReportData,
  type ReportIncident,
} from './markdown.ts';
import { RULES } from './rules.ts';
import { SIGNAL_INFO } from './signalInfo.ts';
import { joinedPieces, jsonTextPieces } from './pieces.ts';
import { sourceText } from './stamp.ts';

export interface HtmlFigure {
  title: string;
  /** a standalone SVG document (figure.ts) */
  svg: string;
  /** the chart's id, when known (markdown.ts chartsInOrder) */
  id?: string;
}

const e = escapeXml;
const turns = (a: number, b: number): string => (a === b ? `turn ${a}` : `turns ${a}–${b}`);
const code = (t: string): string => `<code>${e(t)}</code>`;

const STYLE = `body{font:14px/1.5 system-ui,-apple-system,'Segoe UI','DejaVu Sans',Arial,sans-serif;color:#1f2933;background:#fff;max-width:960px;margin:24px auto;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #d5dae1}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d5dae1;padding:3px 8px;text-align:left;vertical-align:top}
code{background:#f3f5f8;padding:0 3px;border-radius:3px}blockquote{margin:6px 0 6px 8px;padding-left:10px;border-left:3px solid #c9d8ec;color:#3e4c59}
.sev-fault{color:#c62828;font-weight:700}.sev-warning{color:#b45309;font-weight:700}.sev-info{color:#1d4e89;font-weight:700}
figure{margin:12px 0}figure svg{max-width:100%;height:auto;border:1px solid #e4e8ee}`;

function incidentHtml(inc: ReportIncident, heading: string, contractUrl: string, scored = true): string {
  const info = SIGNAL_INFO[inc.signal];
  const rule = RULES[inc.signal];
  // contract §8.9: where no score detector ran, the reference scorer's scores and bindings are left out
  const scoreCells = (s: ReportIncident['spans'][number]): string =>
    scored ? `<td>${s.score === null ? 'null' : Number(s.score.toFixed(4))}</td><td>${e(s.binding)}</td>` : '';
  const rows = inc.spans
    .map(
      (s) =>
        `<tr><td>${code(s.id)}</td><td>${s.turn}</td>${scoreCells(s)}<td>${s.rewrites}</td><td>${s.pinned ? 'yes' : 'no'}</td><td>${s.text === null ? '<em>(text no longer held)</em>' : e(shorten(s.text))}</td></tr>`,
    )
    .join('');
  return (
    `${heading}<ul><li><b>Signal:</b> ${code(inc.signal)} (${e(info.title)}), severity <span class="sev-${inc.severity}">${inc.severity}</span></li>` +
    `<li><b>Fired:</b> ${turns(inc.firstTurn, inc.lastTurn)}, on ${inc.findings} snapshot${inc.findings === 1 ? '' : 's'}</li>` +
    `<li><b>First finding:</b> ${e(inc.message)}</li><li><b>What it means:</b> ${e(info.means)}</li><li><b>What the harness should do:</b> ${e(info.todo)}</li>` +
    `<li><b>Contract rule</b> (<a href="${e(contractUrl)}#${rule.anchor}">§${rule.section}</a>):<blockquote>${e(rule.rule)}</blockquote></li></ul>` +
    (inc.spans.length > 0
      ? `<table><tr><th>span</th><th>turn</th>${scored ? '<th>score</th><th>binding</th>' : ''}<th>rewrites</th><th>pinned</th><th>text (shortened)</th></tr>${rows}</table>` +
        (inc.moreSpans > 0 ? `<p>… and ${inc.moreSpans} more spans.</p>` : '')
      : '<p>No span named (the signal is about the whole snapshot).</p>')
  );
}

export function reportHtml(data: ReportData, figures: readonly HtmlFigure[], contractUrl = CONTRACT_URL): string {
  return [...reportHtmlPieces(data, figures, contractUrl)].join('');
}

/**
 * Levels of the report's data walked before an element is stringified whole: the data, the
 * compaction, its items, one item (an incident, a verdict run: one piece each).
 */
const DATA_LEVELS = 3;

/**
 * The same document in pieces of about PIECE_CHARS (issue 39, "Output streams"): what `report
 * --format html` writes to report.html, never one string. Joined, they are reportHtml's text.
 */
export function reportHtmlPieces(data: ReportData, figures: readonly HtmlFigure[], contractUrl = CONTRACT_URL): Generator<string> {
  return joinedPieces(htmlParts(data, figures, contractUrl));
}

function* htmlParts(data: ReportData, figures: readonly HtmlFigure[], contractUrl: string): Generator<string> {
  const what =
    data.focus !== null
      ? `Incident ${data.focus.number}: ${data.focus.signal} (${data.focus.severity}), ${turns(data.focus.firstTurn, data.focus.lastTurn)}`
      : data.scope.kind === 'turns'
        ? `Turns ${data.range.from}–${data.range.to}`
        : 'Whole session';
  const out: string[] = [
    `<h1>${e(what)}</h1>`,
    `<p>Session ${code(data.sessionId)}${data.title ? ` (${e(data.title)})` : ''}: ${data.session.turns} snapshots, turns ${data.session.firstTurn}–${data.session.lastTurn}. This report covers ${turns(data.range.from, data.range.to)} (${data.turnsInRange} snapshots).</p>`,
    `<ul><li><b>Source:</b> ${e(sourceText(data.source))}</li><li><b>Made by:</b> context-health ${e(data.version)}${data.exportedAt === null ? '' : `, ${e(data.exportedAt)}`}</li></ul>`,
  ];
  const scored = data.context === undefined;
  if (data.context !== undefined) out.push(`<p><b>Headline at turn ${data.context.turn}</b> (contract §8.9): ${e(data.context.text)}</p>`);
  if (data.compactions !== undefined) out.push(compactionsHtml(data.compactions));
  if (data.focus !== null) out.push(incidentHtml(data.focus, '<h2>What fired</h2>', contractUrl, scored));
  out.push(`<h2>${data.focus !== null ? 'Other incidents in these turns' : 'Incidents in these turns'}</h2>`);
  if (data.incidents.length === 0) out.push('<p>None.</p>');
  else if (data.focus !== null) {
    out.push(
      `<table><tr><th>#</th><th>signal</th><th>severity</th><th>turns</th><th>snapshots</th></tr>${data.incidents
        .map(
          (i) =>
            `<tr><td>${i.number}</td><td>${code(i.signal)}</td><td class="sev-${i.severity}">${i.severity}</td><td>${turns(i.firstTurn, i.lastTurn)}</td><td>${i.findings}</td></tr>`,
        )
        .join('')}</table>`,
    );
  } else {
    for (const i of data.incidents.slice(0, MAX_DETAILED_INCIDENTS))
      out.push(incidentHtml(i, `<h3>${i.number}. ${code(i.signal)} (${i.severity}), ${turns(i.firstTurn, i.lastTurn)}</h3>`, contractUrl, scored));
    const rest = data.incidents.slice(MAX_DETAILED_INCIDENTS);
    if (rest.length > 0)
      out.push(
        `<h3>${rest.length} more incidents</h3><table><tr><th>#</th><th>signal</th><th>severity</th><th>turns</th><th>snapshots</th></tr>${rest
          .map(
            (i) =>
              `<tr><td>${i.number}</td><td>${code(i.signal)}</td><td class="sev-${i.severity}">${i.severity}</td><td>${turns(i.firstTurn, i.lastTurn)}</td><td>${i.findings}</td></tr>`,
          )
          .join('')}</table>`,
      );
  }
  out.push('<h2>Verdicts</h2>');
  if (data.context !== undefined) out.push(`<p>${e(contextReportLine(data.context))}</p>`);
  else if (data.verdicts.length === 0) out.push(`<p><code>prune_ok</code> on every turn of this range: ${rangeAdvice(faultInRange(data))}.</p>`);
  else
    out.push(
      `<table><tr><th>turns</th><th>verdict</th><th>spans (first turn)</th><th>what the harness should do</th></tr>${data.verdicts
        .map(
          (v) =>
            `<tr><td>${turns(v.firstTurn, v.lastTurn)}</td><td>${code(v.action)}</td><td>${v.spans.slice(0, 8).map(code).join(', ')}${v.spans.length > 8 ? ` (+${v.spans.length - 8})` : ''}</td><td>${ACTION_TODO[v.action]}</td></tr>`,
        )
        .join('')}</table>`,
    );
  out.push(
    `<h2>Thresholds in force</h2><table><tr><th>threshold</th><th>value</th><th>default</th></tr>${THRESHOLD_KEYS.map((k) => {
      const changed = data.thresholds[k] !== DEFAULT_THRESHOLDS[k];
      return `<tr><td>${changed ? `<b>${k}</b>` : k}</td><td>${data.thresholds[k]}</td><td>${DEFAULT_THRESHOLDS[k]}</td></tr>`;
    }).join('')}</table>`,
  );
  if (figures.length > 0) {
    out.push(`<h2>Charts</h2><p>Zoomed to ${turns(data.range.from, data.range.to)}; each carries its stamp (caption strip).</p>`);
    const { measured, reference } = chartsInOrder(data, figures);
    const figure = (f: HtmlFigure): void => {
      out.push(`<figure data-figure="${e(f.title)}" aria-label="${e(f.title)}">${f.svg.replace(/^<\?xml[^>]*>/, '')}</figure>`);
    };
    measured.forEach(figure);
    if (reference.length > 0) out.push(`<h3>The reference scorer’s scores</h3><p>${e(REFERENCE_CHARTS_WORDS)}</p>`);
    reference.forEach(figure);
  }
  yield (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    `<title>${e(what)} · ${e(data.sessionId)} · context-health report</title><style>${STYLE}</style></head><body>`
  );
  for (let i = 0; i < out.length; i++) yield i === 0 ? out[i]! : `\n${out[i]!}`;
  yield '\n<script type="application/json" id="context-health-report">';
  // the report's data, for tools: JSON inside a non-executed script element, "<" escaped so no
  // text can close it (one character at a time: the same escaping piece by piece as whole)
  for (const piece of jsonTextPieces(data, DATA_LEVELS)) yield piece.replace(/</g, '\\u003c');
  yield '</script></body></html>\n';
}

/** markdown.ts compactionsTable, as HTML. */
function compactionsHtml(c: NonNullable<ReportData['compactions']>): string {
  if (c.total === 0) return '<h2>Compactions</h2><p>None in these turns: the context was not rewritten.</p>';
  const rows = c.rows.map((r) => `<tr><td>${r.number}</td><td>${e(r.line)}</td></tr>`).join('');
  const more = c.total > c.rows.length ? `<p>… and ${c.total - c.rows.length} more (<code>check --json</code> lists every one).</p>` : '';
  return (
    `<h2>Compactions</h2><p>${c.total} compaction${c.total === 1 ? '' : 's'} in these turns (contract §8.3), each with what the first call after it still holds (§8.4). ` +
    `The summary and every audited item of one: <code>context-health report &lt;file&gt; --compaction N</code>.</p>` +
    `<table><tr><th>N</th><th>compaction</th></tr>${rows}</table>${more}`
  );
}
