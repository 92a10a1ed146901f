// The scenario generator's texts: the word lists, the pinned canaries, prose, tool output and
// the explicit token counts a tokenizer would give them. Every function here draws from the
// session's one PRNG, in the order its callers ask, so the simulator's phases decide the
// stream and this module only spends it (src/sim/scenario.golden.test.ts pins the result).
import type { Rng } from './random.ts';

const WORDS = (
  'the a and with for after before then must should not now again each every file module function user request response table row field ' +
  'value check fix update remove add keep parser config retry timeout cache schema migration endpoint token budget deploy rollback index ' +
  'query latency build test fixture branch commit review invoice customer report dataset column pipeline worker queue lock release version ' +
  'patch error warning log trace metric threshold window summary constraint deadline owner ticket bug feature flag plan step result'
).split(' ');
const NON_ASCII_WORDS = ['café', 'naïve', 'résumé', 'Zürich', 'façade', '—', '→', '日本語', 'データ', '東京', '🚀', '✅', '😀', 'µs', '±', '€'];
const TOOL_COMMANDS = [
  '$ npm test',
  '$ git diff --stat',
  '$ grep -rn TODO src',
  '$ curl -s /api/health',
  "$ psql -c 'select count(*) from orders'",
  '$ ls -la build',
];
const CANARIES_UNICODE = [
  'Pinned constraint: never run destructive commands outside the sandbox directory.',
  'Pinned constraint: the customer’s budget is 2 000 € — every plan must stay under it.',
  'Pinned constraint: answers cite the ticket id; 日本語 support is required.',
];
const CANARIES_ASCII = [
  'Pinned constraint: never run destructive commands outside the sandbox directory.',
  "Pinned constraint: the customer's budget is 2000 EUR - every plan must stay under it.",
  'Pinned constraint: answers cite the ticket id; Japanese support is required.',
];

/** Texts for one session: its PRNG and whether it mixes non-ASCII in (ScenarioOptions.nonAscii). */
export class TextWriter {
  constructor(
    private readonly rng: Rng,
    private readonly nonAscii: boolean,
  ) {}

  /** The k-th pinned canary (0-based): a fixed sentence for the first three, a drawn one after. */
  canary(k: number): string {
    const canaries = this.nonAscii ? CANARIES_UNICODE : CANARIES_ASCII;
    return canaries[k] ?? `Pinned constraint #${k + 1}: keep the ${this.rng.pick(WORDS)} ${this.rng.pick(WORDS)} invariant intact.`;
  }

  /** Whole words until about `chars` long: never cuts a surrogate pair, so every text is well-formed UTF-16 (contract §2). */
  words(chars: number, lead?: string): string {
    const rng = this.rng;
    const parts: string[] = [];
    let len = 0;
    let sentence = 0;
    let capital = lead === undefined || lead.endsWith('.');
    if (lead !== undefined) {
      parts.push(lead);
      len += lead.length;
    }
    while (len < chars) {
      let w = this.nonAscii && rng.chance(0.08) ? rng.pick(NON_ASCII_WORDS) : rng.pick(WORDS);
      if (capital) w = w.charAt(0).toUpperCase() + w.slice(1);
      capital = false;
      sentence++;
      if (sentence >= 6 && rng.chance(0.25)) {
        capital = rng.chance(0.8);
        w += capital ? '.' : ';';
        sentence = 0;
      }
      parts.push(w);
      len += w.length + 1;
    }
    const text = parts.join(' ');
    return /[.;]$/.test(text) ? text : text + '.';
  }

  /** A shell command and its output. */
  toolText(chars: number): string {
    const cmd = this.rng.pick(TOOL_COMMANDS);
    return this.words(Math.max(cmd.length + 8, chars), `${cmd} ${this.nonAscii ? '→' : '->'}`);
  }

  /** contract §2 tokens, given explicitly: about a token per four code points, as a tokenizer would vary. */
  tokensOf(text: string): number {
    let codePoints = text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) codePoints--;
    }
    return Math.max(1, Math.round((codePoints / 4) * this.rng.float(0.9, 1.15)));
  }
}
