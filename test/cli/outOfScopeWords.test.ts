// contract §8.9: `check`'s human output and `report` (Markdown and HTML) of a session where no
// score detector ran (an imported agent's, reference scope §8.1) say its §8.9 headline and
// never the scored loop's words; a native sample keeps them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './runCli.ts';

const AGENT = path.join(ROOT, 'e2e/fixtures/claude-code-compactions.jsonl');
const NATIVE = path.join(ROOT, 'public/samples/all-faults.jsonl');
/** the scored loop's words (issue 34): never said of a session where no score detector ran */
const SCORED_WORDS = [/PRUNE OK/, /pruning may proceed/i, /\bbound\b/i, /may prune as usual/];

/** What a reader of the HTML sees: its text, without the machine-readable JSON it embeds (as `check --json`, unchanged). */
const visibleHtml = (html: string): string => html.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ');

describe('contract §8.9 words of an out-of-scope session', () => {
  it('check and report (md, html) give the headline and none of the scored-loop words', async () => {
    const check = await runCli(['check', AGENT]);
    expect(check.code).toBe(0);
    const headline =
      'LOSS CONFIRMED: turn 6 re-read a file the compaction at turn 5 dropped; 2 compactions, 1 confirmed loss; 2% of the window (3,600 of 200,000 tokens).';
    expect(check.stdout).toContain(`    ${headline}\n`);
    const md = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scope-md-'));
    expect((await runCli(['report', AGENT, '--out', md])).code).toBe(0);
    const markdown = fs.readFileSync(path.join(md, 'report.md'), 'utf8');
    expect(markdown).toContain(`**Headline at turn 10** (contract §8.9): ${headline}`);
    expect(markdown).toContain('| span | turn | rewrites | pinned | text (shortened) |');
    // what was measured comes first: a row per compaction, in check's words, before the incidents
    const checkLines = check.stdout.split('\n').filter((l) => /^ {4}turn \d+: /.test(l));
    expect(checkLines).toHaveLength(2);
    const rows = markdown.split('\n').filter((l) => /^\| \d+ \| turn \d+: /.test(l));
    expect(rows).toEqual(checkLines.map((l, i) => `| ${i + 1} | ${l.trim()} |`));
    expect(markdown.indexOf('## Compactions')).toBeLessThan(markdown.indexOf('## Incidents in these turns'));
    // and the charts: what fills the context and the lineage, then the reference scorer's, said to be read by no detector
    expect([...markdown.matchAll(/^!\[[^\]]*\]\(images\/(\w+)\.png\)$/gm)].map((m) => m[1])).toEqual(['composition', 'orphans', 'spread', 'canary', 'drift']);
    expect(markdown).toContain('No score detector ran on this session (contract §8.1). The charts below show the scores the reference scorer gave its spans');
    const html = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scope-html-'));
    expect((await runCli(['report', AGENT, '--format', 'html', '--out', html])).code).toBe(0);
    const page = visibleHtml(fs.readFileSync(path.join(html, 'report.html'), 'utf8'));
    expect(page).toContain(headline);
    expect(page).toContain(checkLines[0]!.trim());
    const incident = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scope-inc-'));
    expect((await runCli(['report', AGENT, '--incident', '2', '--out', incident])).code).toBe(0);
    const one = fs.readFileSync(path.join(incident, 'report.md'), 'utf8');
    for (const [name, text] of [
      ['check', check.stdout],
      ['report.md', markdown],
      ['report.html', page],
      ['incident report', one],
    ] as const)
      for (const w of SCORED_WORDS) expect(text, `${name} says ${String(w)}`).not.toMatch(w);
  });

  it('a native sample keeps the scored loop words', async () => {
    const check = await runCli(['check', '--fail-on', 'never', NATIVE]);
    expect(check.stdout).toContain('headline other than PRUNE OK');
    expect(check.stdout).not.toContain('§8.9');
  });

  it("a native sample's report keeps the dashboard's chart order, with no Compactions table", async () => {
    const md = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scope-native-'));
    expect((await runCli(['report', '--fail-on', 'never', NATIVE, '--out', md])).code).toBe(0);
    const markdown = fs.readFileSync(path.join(md, 'report.md'), 'utf8');
    expect(markdown).not.toContain('## Compactions');
    expect(markdown).not.toContain('No score detector ran');
    expect([...markdown.matchAll(/^!\[[^\]]*\]\(images\/(\w+)\.png\)$/gm)].map((m) => m[1])).toEqual(['composition', 'spread', 'canary', 'drift', 'orphans']);
  });
});
