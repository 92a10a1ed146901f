// docs/hooks.md: what a compaction lost, handed back to the agent right after it (Claude
// Code's `SessionStart` hook, source `compact`), within a token budget by contract §2.3's
// estimate. Pure: the audit (compactionAudit.ts) judged the items; this module only picks and
// words them. Order (the rule): the prompts the summary does not hold word for word,
// newest first, quoted exactly; the pending todos; the files the summary does not name,
// edited ones first; one line naming the full audit. An item that does not fit is left out
// whole and counted ("and 3 more prompts"), never cut mid-quote.
import type { AuditItem } from './compactionAudit.ts';
import { estimateTokens } from './spanScan.ts';

/** docs/hooks.md: the default budget, in tokens (contract §2.3's estimate, ⌈code points / 4⌉). */
export const DEFAULT_HANDBACK_BUDGET = 2000;

export interface HandbackFile {
  path: string;
  edited: boolean;
}

export interface HandbackInput {
  /** the compaction's prompt items the summary does not hold word for word (status other than kept) */
  prompts: AuditItem[];
  /** the pending todos of the stretch's last todo list */
  todos: string[];
  /** the files the summary does not name */
  files: HandbackFile[];
  /** the one line saying where the full audit is */
  auditLine: string;
  budget: number;
}

export interface KindCount {
  given: number;
  left: number;
}

export interface Handback {
  /** the additional context; "" when not even its frame fits the budget */
  text: string;
  tokens: number;
  prompts: KindCount;
  todos: KindCount;
  files: KindCount;
}

type Section = 'prompts' | 'todos' | 'files';

interface Entry {
  section: Section;
  text: string;
}

const HEADINGS: Record<Section, string> = {
  prompts: "The user's prompts that the compaction summary does not hold word for word (newest first, quoted exactly):",
  todos: 'Pending todos:',
  files: 'Files this stretch edited or read that the summary does not name (re-read them if you need them):',
};

const NOUNS: Record<Section, [string, string]> = {
  prompts: ['prompt', 'prompts'],
  todos: ['todo', 'todos'],
  files: ['file', 'files'],
};

const SECTIONS: readonly Section[] = ['prompts', 'todos', 'files'];

const INTRO = 'Context Health: the compaction just made dropped these from the context.';
const NOTHING = 'Context Health: the compaction summary holds every prompt of the stretch and names every file it touched.';

/** A prompt quoted exactly: each of its lines after "> " (the text is the lines with that prefix taken off). */
export function quotePrompt(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function entries(input: HandbackInput): Entry[] {
  const prompts = [...input.prompts].sort((a, b) => b.from_turn - a.from_turn);
  const files = [...input.files.filter((f) => f.edited), ...input.files.filter((f) => !f.edited)];
  return [
    ...prompts.map((p) => ({ section: 'prompts' as const, text: quotePrompt(p.text) })),
    ...input.todos.map((t) => ({ section: 'todos' as const, text: `- ${t}` })),
    ...files.map((f) => ({ section: 'files' as const, text: `- ${f.path} (${f.edited ? 'edited' : 'read'})` })),
  ];
}

function render(all: Entry[], kept: ReadonlySet<number>, auditLine: string): string {
  if (all.length === 0) return `${NOTHING}\n${auditLine}`;
  const parts: string[] = [INTRO];
  for (const section of SECTIONS) {
    const mine = all.map((e, i) => ({ e, i })).filter(({ e }) => e.section === section);
    if (mine.length === 0) continue;
    const given = mine.filter(({ i }) => kept.has(i)).map(({ e }) => e.text);
    const left = mine.length - given.length;
    const lines = [HEADINGS[section], ...given];
    if (left > 0) lines.push(`(and ${left} ${given.length === 0 ? '' : 'more '}${NOUNS[section][left === 1 ? 0 : 1]} left out for the token budget)`);
    parts.push(lines.join('\n'));
  }
  parts.push(auditLine);
  return parts.join('\n\n');
}

function counts(all: Entry[], kept: ReadonlySet<number>, section: Section): KindCount {
  let given = 0;
  let total = 0;
  all.forEach((e, i) => {
    if (e.section !== section) return;
    total++;
    if (kept.has(i)) given++;
  });
  return { given, left: total - given };
}

/**
 * The hand-back within `budget` tokens: each item, in order, is taken when the whole text
 * with it (and every item not yet taken counted as left out) still fits; a taken item is
 * never shortened. The counts' lines are part of the text, so the check is on the text.
 */
export function composeHandback(input: HandbackInput): Handback {
  const all = entries(input);
  const kept = new Set<number>();
  const fits = (set: ReadonlySet<number>): boolean => estimateTokens(render(all, set, input.auditLine)) <= input.budget;
  if (fits(kept)) {
    for (let i = 0; i < all.length; i++) {
      kept.add(i);
      if (!fits(kept)) kept.delete(i);
    }
  }
  // a count's line may grow by a digit as items are left out: take the last ones back out until it fits
  const order = [...kept].sort((a, b) => b - a);
  while (!fits(kept) && order.length > 0) kept.delete(order.shift()!);
  const text = fits(kept) ? render(all, kept, input.auditLine) : '';
  return {
    text,
    tokens: estimateTokens(text),
    prompts: counts(all, kept, 'prompts'),
    todos: counts(all, kept, 'todos'),
    files: counts(all, kept, 'files'),
  };
}
