// The detector table (detectors.ts) against signals.ts and the contract: every signal has
// exactly one entry, in signals.ts's order (a turn's findings are listed in it), and every
// one has its own section in docs/contract.md.
// eslint-disable-next-line no-restricted-imports -- the contract is read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETECTORS } from './detectors.ts';
import { SIGNALS } from './signals.ts';

const contract = fs.readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');

describe('the detector table', () => {
  it('has one entry per signal, in the order of signals.ts, except reference_disagreement (run after the engine, contract §7)', () => {
    expect(DETECTORS.map((d) => d.signal)).toEqual(SIGNALS.filter((s) => s !== 'reference_disagreement'));
  });

  it.each(SIGNALS)('%s is named in a heading or the rule table of the contract', (signal) => {
    const heading = new RegExp(`^#{3} [\\d.]+ .*\`${signal}\``, 'm').test(contract);
    const row = contract.includes(`\`${signal}\``);
    expect(heading || row).toBe(true);
  });
});
