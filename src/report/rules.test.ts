import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNALS } from '../core/signals.ts';
import { RULES } from './rules.ts';

const contract = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/contract.md'), 'utf8');
const flat = contract.replace(/\s+/g, ' ');

/** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, spaces to -. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('contract rules quoted in reports', () => {
  it.each(SIGNALS)('%s: the quote is the contract text and the link its heading', (signal) => {
    const r = RULES[signal];
    expect(flat).toContain(r.rule);
    const headings = [...contract.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!);
    const heading = headings.find((h) => h.startsWith(`${r.section} `) || h.startsWith(`${r.section}. `));
    expect(heading, `a heading for §${r.section}`).toBeDefined();
    expect(anchorOf(heading!)).toBe(r.anchor);
  });
});
