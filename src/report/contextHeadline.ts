// contract §8.9: the headline of a session in the reference scope (§8.1), where no score
// detector ran. It speaks only of what was measured there: the lineage (orphaned_parent),
// the compactions and their confirmed losses (§8.3–§8.6), and the pressure on the window
// (§8.7). It never says a score is bound or that pruning may proceed: the agent does not prune
// by score, and nothing here checked a score. The banner, the overview's chip, `check`'s human
// output, the reports and the print page all take these words from here. Pure: no DOM, no Node.
import type { Headline } from './headline.ts';
import { collapsedStart } from '../core/shortText.ts';
import { groupedDigits } from '../core/digits.ts';

/** What the headline of an out-of-scope session says, worst first (contract §8.9 precedence). */
export type ContextKind = 'lineage_broken' | 'loss_confirmed' | 'near_limit' | 'context_ok';

export const CONTEXT_RANK: Readonly<Record<ContextKind, number>> = { context_ok: 0, near_limit: 1, loss_confirmed: 2, lineage_broken: 3 };

export const CONTEXT_LABEL: Readonly<Record<ContextKind, string>> = {
  lineage_broken: 'LINEAGE BROKEN',
  loss_confirmed: 'LOSS CONFIRMED',
  near_limit: 'NEAR THE LIMIT',
  context_ok: 'CONTEXT OK',
};

/** An audited item as a compaction record holds it (contract §8.3 `items[]`). */
export interface ContextItem {
  kind: string;
  text: string;
  confirmed: boolean;
  refetched_at: number | null;
}

/** A compaction record, as much of it as the headline reads. */
export interface ContextCompaction {
  turn: number;
  items: readonly ContextItem[];
}

export interface ContextHeadlineInput {
  /** the headline is of the session as it stood at this turn */
  turn: number;
  tokensTotal: number;
  /** the session's context window in tokens (contract §8.7), null when none is known */
  window: number | null;
  /** contract §8.7 pressure_threshold, the share of the window context_pressure fires at */
  pressureThreshold: number;
  /** contract §3 orphan_edges of this turn */
  orphanEdges: number;
  /** the session's compactions (records after `turn` are left out here) */
  compactions: readonly ContextCompaction[];
  /**
   * the figures below as the caller keeps them turn by turn (CompactionLedger.tally): the
   * relay words a headline at every turn, and a pass over every item each time was n × n
   * (docs/security.md "Linear time"); without it they are counted from `compactions`
   */
  tally?: CompactionTally;
}

/** What the headline reads of the compactions as of its turn. */
export interface CompactionTally {
  /** records that took effect by the turn */
  compactions: number;
  /** confirmed losses known by the turn */
  losses: number;
  /** the first of confirmedLosses(), or null */
  latest: ConfirmedLoss | null;
}

function tallyOf(input: ContextHeadlineInput): CompactionTally {
  if (input.tally !== undefined) return input.tally;
  const losses = confirmedLosses(input.compactions, input.turn);
  return { compactions: input.compactions.filter((c) => c.turn <= input.turn).length, losses: losses.length, latest: losses[0] ?? null };
}

/** A confirmed loss as of a turn: the item, the compaction that dropped it, the turn the agent went back for it. */
export interface ConfirmedLoss {
  compactionTurn: number;
  refetchTurn: number;
  kind: string;
  text: string;
}

const plural = (n: number, word: string, many = `${word}s`): string => `${groupedDigits(n)} ${n === 1 ? word : many}`;
const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** The confirmed losses known at `turn` (refetched at or before it), latest refetch first. */
export function confirmedLosses(compactions: readonly ContextCompaction[], turn: number): ConfirmedLoss[] {
  const out: ConfirmedLoss[] = [];
  for (const c of compactions) {
    if (c.turn > turn) continue;
    for (const item of c.items)
      if (item.confirmed && item.refetched_at !== null && item.refetched_at <= turn)
        out.push({ compactionTurn: c.turn, refetchTurn: item.refetched_at, kind: item.kind, text: item.text });
  }
  return out.sort((a, b) => b.refetchTurn - a.refetchTurn || b.compactionTurn - a.compactionTurn);
}

/** "turn 6 re-read a file the compaction at turn 5 dropped": what the agent went back for, in its own act. */
export function lossWords(loss: ConfirmedLoss): string {
  const what = loss.kind === 'file' ? 're-read a file' : loss.kind === 'user_prompt' ? 'restated a prompt' : `went back for a ${loss.kind.replace(/_/g, ' ')}`;
  return `turn ${loss.refetchTurn} ${what} the compaction at turn ${loss.compactionTurn} dropped`;
}

/** A file's last path component, a prompt's first words: the item named in a sentence (the whole text stays in the record). */
function itemName(loss: ConfirmedLoss): string {
  if (loss.kind === 'file') return loss.text.split(/[\\/]/).pop() ?? loss.text;
  const words = collapsedStart(loss.text, 60);
  return words.length > 60 ? `“${words.slice(0, 59)}…”` : `“${words}”`;
}

function fillWords(input: ContextHeadlineInput): string {
  if (input.window === null || !(input.window > 0)) return `${plural(input.tokensTotal, 'token')} in the context (no context window is known)`;
  return `${pct(input.tokensTotal / input.window)} of the window (${groupedDigits(input.tokensTotal)} of ${groupedDigits(input.window)} tokens)`;
}

/** The kind alone, by the contract §8.9 precedence: lineage, then confirmed losses, then pressure. */
export function contextKind(input: ContextHeadlineInput): ContextKind {
  if (input.orphanEdges > 0) return 'lineage_broken';
  if (tallyOf(input).losses > 0) return 'loss_confirmed';
  if (input.window !== null && input.window > 0 && input.tokensTotal >= input.pressureThreshold * input.window) return 'near_limit';
  return 'context_ok';
}

/**
 * contract §8.9: the headline of an out-of-scope session as it stood at `input.turn`. `label`
 * is the big word, `say` the sentence under it, `text` the one line of the print page, the
 * reports and `check`: `LABEL: what made it so; the compactions and losses; the fill`.
 */
export function contextHeadline(input: ContextHeadlineInput): Headline & { kind: ContextKind } {
  const tally = tallyOf(input);
  const kind = contextKind({ ...input, tally });
  const { compactions } = tally;
  const fill = fillWords(input);
  const history =
    compactions === 0
      ? 'no compaction yet'
      : `${plural(compactions, 'compaction')}, ${tally.losses === 0 ? 'no confirmed loss' : plural(tally.losses, 'confirmed loss', 'confirmed losses')}`;
  let lead: string;
  let say: string;
  switch (kind) {
    case 'lineage_broken':
      lead = `${plural(input.orphanEdges, 'orphan edge')} at turn ${input.turn}`;
      say = `A live span derives from a parent that is neither live nor archived (orphaned_parent): ${plural(input.orphanEdges, 'orphan edge')} at turn ${input.turn}.`;
      break;
    case 'loss_confirmed': {
      const latest = tally.latest!;
      lead = lossWords(latest);
      say = `${lead.charAt(0).toUpperCase()}${lead.slice(1)} (${itemName(latest)}): the summary lost something the agent needed.`;
      break;
    }
    case 'near_limit':
      lead = fill;
      say = `The context holds ${fill} at turn ${input.turn}, at or past the ${pct(input.pressureThreshold)} pressure threshold: a compaction is near.`;
      break;
    case 'context_ok':
      lead = history;
      say = `No orphaned lineage and no confirmed loss at turn ${input.turn}; the context holds ${fill}.`;
      break;
  }
  const clauses = [lead];
  if (kind !== 'context_ok') clauses.push(history);
  if (kind !== 'near_limit') clauses.push(fill);
  const tone = kind === 'context_ok' ? 'ok' : kind === 'lineage_broken' ? 'fault' : 'warn';
  return {
    kind,
    tone,
    label: CONTEXT_LABEL[kind],
    say,
    findings: [],
    faults: kind === 'lineage_broken' ? 1 : 0,
    warnings: kind === 'loss_confirmed' ? 1 : 0,
    text: `${CONTEXT_LABEL[kind]}: ${clauses.join('; ')}.`,
  };
}

/** People's names of the header `source` values the adapters write (src/core/scope.ts IMPORTED_SOURCES). */
export const AGENT_NAMES: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  'gemini-cli': 'Gemini CLI',
  openhands: 'OpenHands',
  'swe-agent': 'SWE-agent',
  'mini-swe-agent': 'mini-swe-agent',
  otlp: 'OpenTelemetry',
  proxy: 'an agent (proxy)',
};

/** The agent a header's `source` names, as people call it. */
export function agentName(source: string): string {
  return AGENT_NAMES[source] ?? source;
}

/** A working folder by its last component (the whole path is on hover). */
export function projectName(project: string): string {
  return (
    project
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() || project
  );
}

/**
 * Why the overview's score columns (spread, canary rank) read "—" for such a session: contract
 * §8.1 in a sentence (the reasons of NOT_APPLICABLE_REFERENCE, src/core/scope.ts).
 */
export const SCORE_COLUMN_REASON =
  'Not measured (contract §8.1): the reference scorer gives every score of this session; it is a separate model that re-scores every span on every turn and never edits the context, which both seeds put outside the score detectors’ scope.';
