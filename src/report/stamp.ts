// The stamp every exported image carries (issue "Incident reports", item 1): which
// session, turns, thresholds, source and product version it shows, as a caption strip
// people can read and as JSON in the PNG's iTXt chunk (png.ts) that tools can read.
// One model for the dashboard and `context-health report`.
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, type Thresholds } from '../core/config.ts';
import { SIGNALS, type Signal } from '../core/signals.ts';
import pkg from '../../package.json' with { type: 'json' };
import { INVISIBLE_CLASS } from '../core/terminalText.ts';

export const PRODUCT_VERSION: string = pkg.version;

export type StampSource =
  /** a transcript file: its name and the sha256 of its bytes (null while not known) */
  | { kind: 'file'; name: string; sha256: string | null }
  /** a live session on a relay: its URL and the relay sequence numbers the view holds */
  | { kind: 'relay'; url: string; seq_from: number | null; seq_to: number | null };

export interface Stamp {
  product: 'context-health';
  version: string;
  /** the figure: a chart's id (spread, canary, drift, orphans, agreement), "verdict", "lineage" */
  figure: string;
  session_id: string;
  title: string | null;
  /** the turn range the figure shows */
  turns: { from: number; to: number };
  selected_turn: number | null;
  /** the signals that fired in the range shown, contract §4 order */
  signals: Signal[];
  /** only the thresholds that differ from the defaults (contract §4.2) */
  thresholds: Partial<Thresholds>;
  source: StampSource;
  /** UTC ISO time of export; null when left out (`report` without --timestamp: reproducible bytes) */
  exported_at: string | null;
}

/** The thresholds in force that differ from contract §4.2 defaults, in the defaults' key order. */
export function nonDefaultThresholds(th: Readonly<Thresholds>): Partial<Thresholds> {
  const out: Partial<Thresholds> = {};
  for (const key of THRESHOLD_KEYS) if (th[key] !== DEFAULT_THRESHOLDS[key]) out[key] = th[key];
  return out;
}

/** Signals in contract §4 table order, each once. */
export function signalsInOrder(signals: Iterable<Signal>): Signal[] {
  const set = new Set(signals);
  return SIGNALS.filter((s) => set.has(s));
}

/** The stamp as JSON, keys always in the same order (the same stamp gives the same bytes). */
export function stampJson(stamp: Stamp): string {
  const source: StampSource =
    stamp.source.kind === 'file'
      ? { kind: 'file', name: stamp.source.name, sha256: stamp.source.sha256 }
      : { kind: 'relay', url: stamp.source.url, seq_from: stamp.source.seq_from, seq_to: stamp.source.seq_to };
  const thresholds: Partial<Thresholds> = {};
  for (const key of THRESHOLD_KEYS) if (stamp.thresholds[key] !== undefined) thresholds[key] = stamp.thresholds[key];
  const ordered: Stamp = {
    product: 'context-health',
    version: stamp.version,
    figure: stamp.figure,
    session_id: stamp.session_id,
    title: stamp.title,
    turns: { from: stamp.turns.from, to: stamp.turns.to },
    selected_turn: stamp.selected_turn,
    signals: signalsInOrder(stamp.signals),
    thresholds,
    source,
    exported_at: stamp.exported_at,
  };
  return JSON.stringify(ordered);
}

/** A stamp read back from an image; throws saying which field is missing or wrong. */
export function parseStamp(text: string): Stamp {
  const v = JSON.parse(text) as Partial<Stamp> | null;
  const need = (ok: boolean, field: string): void => {
    if (!ok) throw new Error(`not a context-health stamp: ${field} is missing or malformed`);
  };
  need(typeof v === 'object' && v !== null, 'the object');
  need(v!.product === 'context-health', 'product');
  need(typeof v!.session_id === 'string', 'session_id');
  need(typeof v!.turns?.from === 'number' && typeof v!.turns?.to === 'number', 'turns');
  need(Array.isArray(v!.signals), 'signals');
  need(typeof v!.thresholds === 'object' && v!.thresholds !== null, 'thresholds');
  need(v!.source?.kind === 'file' || v!.source?.kind === 'relay', 'source');
  return v as Stamp;
}

/** First 12 hex digits of a sha256: enough to tell files apart in a caption. */
export const shortSha = (sha: string | null): string => (sha === null ? 'sha256 not known' : `sha256 ${sha.slice(0, 12)}`);

/** The source in one phrase. */
export function sourceText(source: StampSource): string {
  if (source.kind === 'file') return `${source.name} (${shortSha(source.sha256)})`;
  const seq = source.seq_from === null ? '' : ` seq ${source.seq_from}–${source.seq_to ?? source.seq_from}`;
  return `${source.url}${seq}`;
}

/** C0/C1 controls, bidi and zero-width characters (terminalText.ts INVISIBLE_CLASS), and lone surrogates. */
const UNPRINTABLE = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_CLASS}]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  'g',
);

/** Control, bidi and zero-width characters (and the lone surrogates XML cannot hold) shown as a visible mark: titles and ids are input. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '\ufffd');
}

/** The caption strip's lines, the same facts as the JSON, for people. */
export function captionLines(stamp: Omit<Stamp, 'figure'>): string[] {
  const th = Object.entries(stamp.thresholds).map(([k, v]) => `${k}=${v}`);
  const title = stamp.title === null || stamp.title === '' ? '' : ` “${printable(stamp.title)}”`;
  return [
    `Session ${printable(stamp.session_id)}${title} · turns ${stamp.turns.from}–${stamp.turns.to}${stamp.selected_turn === null ? '' : ` · selected turn ${stamp.selected_turn}`}`,
    `Signals in view: ${stamp.signals.length === 0 ? 'none' : stamp.signals.join(', ')} · thresholds: ${th.length === 0 ? 'defaults' : th.join(', ')}`,
    `Source: ${printable(sourceText(stamp.source))} · context-health ${stamp.version}${stamp.exported_at === null ? '' : ` · exported ${stamp.exported_at.replace(/\.\d+Z$/, 'Z')}`}`,
  ];
}

/**
 * A figure's one-line caption in a report that gives the whole stamp once, above its
 * charts (src/report/markdown.ts, "About these figures"): what the figure shows, and where
 * the rest of its stamp is. The PNG still carries the whole stamp as JSON.
 */
export function captionLine(stamp: Stamp): string {
  return `${captionLines(stamp)[0]!} · full stamp: the report's "About these figures"`;
}
