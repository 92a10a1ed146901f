// contract §8.7 what fills the context, per turn, as the composition chart draws it. The
// engine's `tokens_by_kind` when the session has it; a native session without it is drawn by
// its spans' roles when they carry roles, else as one band (its total). Kinds are kept in the
// order they first appeared and the bands are cut from that order, so a session that grows
// live never reorders its bands or changes a band's colour.
import { estimateTokens } from '../core/analyse.ts';
import type { Span } from '../core/wire.ts';
import { f64, type Column } from './columns.ts';

/** Tools whose results get a band of their own, the first to appear; later ones share "tool results (other)". */
export const MAX_TOOL_BANDS = 5;
export const OTHER_TOOLS = 'tool_result:(other)';
/** The one band of a session whose spans say nothing of what they are. */
export const WHOLE = 'context';

export type CompositionSource = 'kind' | 'role' | 'total';

export class Composition {
  /** every kind seen, in order of first appearance */
  readonly kinds: string[] = [];
  readonly cols: Column<Float64Array>[] = [];
  /** the context window per turn (NaN: none known) */
  readonly window = f64();
  /** where the kinds come from: set by the first turn (a session does not change its shape) */
  source: CompositionSource | null = null;
  private readonly index = new Map<string, number>();
  private turns = 0;

  record(byKind: Record<string, number> | undefined, spans: readonly Span[], total: number, window: number): void {
    this.source ??= byKind !== undefined ? 'kind' : spans.some((s) => typeof s.role === 'string' && s.role !== '') ? 'role' : 'total';
    const t = this.turns++;
    for (const c of this.cols) c.push(0);
    this.window.push(window);
    if (this.source === 'kind' && byKind !== undefined) {
      for (const [kind, tokens] of Object.entries(byKind)) this.add(kind, t, tokens);
    } else if (this.source === 'role') {
      for (const s of spans) this.add(typeof s.role === 'string' && s.role !== '' ? s.role : 'other', t, s.tokens ?? estimateTokens(s.text));
    } else this.add(WHOLE, t, total);
  }

  private add(kind: string, t: number, tokens: number): void {
    let k = this.index.get(kind);
    if (k === undefined) {
      k = this.cols.length;
      this.index.set(kind, k);
      this.kinds.push(kind);
      const col = f64();
      for (let i = 0; i <= t; i++) col.push(0);
      this.cols.push(col);
    }
    const col = this.cols[k]!;
    col.set(t, col.get(t) + tokens);
  }

  /** The kinds of turn index t with their tokens, largest first (the turn panel's bars). */
  at(t: number): { kind: string; tokens: number }[] {
    const out: { kind: string; tokens: number }[] = [];
    this.kinds.forEach((kind, k) => {
      const v = this.cols[k]!.get(t);
      if (v > 0) out.push({ kind, tokens: v });
    });
    return out.sort((a, b) => b.tokens - a.tokens);
  }

  /** The band each kind is drawn in: its own, or "tool results (other)" past the first few tools. */
  bandOf(): Map<string, string> {
    const out = new Map<string, string>();
    let tools = 0;
    for (const kind of this.kinds) {
      if (kind.startsWith('tool_result:')) out.set(kind, tools++ < MAX_TOOL_BANDS ? kind : OTHER_TOOLS);
      else out.set(kind, kind);
    }
    return out;
  }
}

/** Bottom to top: the fixed part first, what the agent's work adds above it. Unknown kinds go last, in order of appearance. */
const BAND_ORDER = ['system', 'summary', 'meta', 'user', 'assistant', 'thinking', 'tool_use', 'tool_result'];

export function bandRank(key: string): number {
  const family = key.startsWith('tool_result') ? 'tool_result' : key;
  const r = BAND_ORDER.indexOf(family);
  return r < 0 ? BAND_ORDER.length : r;
}

/** A kind in words, for the legend, the readout and the turn panel. */
export function kindLabel(key: string): string {
  switch (key) {
    case 'system':
      return 'system prompt & tools';
    case 'summary':
      return 'compaction summary';
    case 'meta':
      return 'meta / reminders';
    case 'user':
      return 'user prompts';
    case 'assistant':
      return 'assistant text';
    case 'thinking':
      return 'thinking';
    case 'tool_use':
      return 'tool calls';
    case 'tool_result':
      return 'tool results';
    case OTHER_TOOLS:
      return 'tool results (other)';
    case WHOLE:
      return 'context (spans carry no kind)';
    default:
      return key.startsWith('tool_result:') ? `results of ${key.slice('tool_result:'.length)}` : key;
  }
}

/**
 * Where an agent compacts on its own, as tokens below its context window (docs/dashboard.md
 * "Auto-compaction point"). Claude Code: it keeps up to 20,000 tokens for the model's answer
 * and a 13,000-token buffer, so it auto-compacts at the window less 33,000 tokens (167,000 of
 * 200,000, 83.5%; the `preTokens` of its auto compact_boundary records sit there). Only agents
 * whose point is known are listed: a Codex rollout does not record its
 * `model_auto_compact_token_limit`, and the others' points are not established, so none is drawn.
 */
export const AUTO_COMPACT: Readonly<Record<string, { reserve: number; label: string }>> = {
  'claude-code': { reserve: 33_000, label: 'Claude Code auto-compacts here (the window less 33,000 tokens)' },
};
