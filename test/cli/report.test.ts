// `context-health report` (docs/reports.md), run as a user runs it: plain node on the bin.
// Each run draws the dashboard's charts under Node and rasterises them, a few seconds each,
// so the runs are shared by the assertions below.
import { STABLE_CONTRACT_URL } from '../../src/report/markdown.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode } from 'fast-png';
import { beforeAll, describe, expect, it } from 'vitest';
import { incidentsOf } from '../../src/core/incidents.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { pngSize, readITxt } from '../../src/report/png.ts';
import { parseStamp } from '../../src/report/stamp.ts';
import { ROOT, runCli, type CliRun } from './runCli.ts';

const SAMPLE = path.join(ROOT, 'public/samples/all-faults.jsonl');
const LONG = 600_000;

let dir: string;
const out = (name: string): string => path.join(dir, name);
const files = (folder: string): string[] => fs.readdirSync(folder, { recursive: true, withFileTypes: false }).map(String).sort();

let incidentRun: CliRun;
let incidentAgain: CliRun;
/** V8's code cache of the drawing bundle (src/cli/rendererBundle.ts): absent before the first run, made by it */
const CODE_CACHE = path.join(ROOT, 'node_modules/.cache/context-health/draw.cjs.v8cache');
let cacheAfterFirst: boolean;
let turnsRun: CliRun;
let checkJson: CheckOutput;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-report-'));
  const check = await runCli(['check', SAMPLE, '--json', '--set', 'spread_floor=0.1']);
  checkJson = JSON.parse(check.stdout) as CheckOutput;
  fs.rmSync(CODE_CACHE, { force: true });
  incidentRun = await runCli(['report', SAMPLE, '--incident', '1', '--set', 'spread_floor=0.1', '--out', out('a')]);
  cacheAfterFirst = fs.existsSync(CODE_CACHE);
  incidentAgain = await runCli(['report', SAMPLE, '--incident', '1', '--set', 'spread_floor=0.1', '--out', out('b')]);
  turnsRun = await runCli(['report', SAMPLE, '--turns', '100..140', '--set', 'spread_floor=0.1', '--out', out('c')]);
}, LONG);

/** check's incidents (the same grouping as the report's numbering) overlapping turns [from, to] */
function checkIncidents(from: number, to: number) {
  const s = checkJson.sessions[0]!;
  const all = incidentsOf(
    s.findings,
    s.metrics.map((m) => m.turn),
  );
  return all.map((inc, i) => ({ ...inc, number: i + 1 })).filter((inc) => inc.lastTurn >= from && inc.firstTurn <= to);
}

const turnsText = (a: number, b: number): string => (a === b ? `turn ${a}` : `turns ${a}–${b}`);

describe('context-health report', () => {
  it('exits as check does and names the files it wrote', () => {
    expect(incidentRun.stderr).toBe('');
    expect(incidentRun.code).toBe(1); // all-faults has faults: check exits 1 too
    expect(incidentRun.stdout).toContain(path.join(out('a'), 'report.md'));
    expect(files(out('a'))).toEqual([
      'images',
      'images/canary.png',
      'images/canary.svg',
      'images/composition.png',
      'images/composition.svg',
      'images/drift.png',
      'images/drift.svg',
      'images/orphans.png',
      'images/orphans.svg',
      'images/spread.png',
      'images/spread.svg',
      'report.md',
    ]);
  });

  it('names the same incidents as check --json for the chosen turns', () => {
    expect(turnsRun.stderr).toBe('');
    expect(turnsRun.code).toBe(1);
    const md = fs.readFileSync(path.join(out('c'), 'report.md'), 'utf8');
    const expected = checkIncidents(100, 140);
    expect(expected.length).toBeGreaterThan(3);
    const named = [...md.matchAll(/^### (\d+)\. `(\w+)` \((\w+)\), (turns? [\d–]+)$/gm)].map((m) => ({ number: Number(m[1]), signal: m[2], text: m[4] }));
    expect(named).toEqual(expected.map((i) => ({ number: i.number, signal: i.signal, text: turnsText(i.firstTurn, i.lastTurn) })));
    // and the incident report: its incident first, then every other one in its range
    const one = fs.readFileSync(path.join(out('a'), 'report.md'), 'utf8');
    const first = checkIncidents(-Infinity, Infinity)[0]!;
    expect(one).toContain(`# Incident 1: \`${first.signal}\``);
    const range = /This report covers turns (\d+)–(\d+)/.exec(one)!;
    const others = checkIncidents(Number(range[1]), Number(range[2])).filter((i) => i.number !== 1);
    const rows = [...one.matchAll(/^\| (\d+) \| `(\w+)` \| \w+ \| (turns? [\d–]+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(rows).toEqual(others.map((i) => `${i.number} ${i.signal} ${turnsText(i.firstTurn, i.lastTurn)}`));
  });

  it('lists the spans, the rule quoted from the contract, and the thresholds in force', () => {
    const md = fs.readFileSync(path.join(out('a'), 'report.md'), 'utf8');
    const s = checkJson.sessions[0]!;
    const firstFinding = s.findings[0]!;
    for (const id of firstFinding.span_ids) expect(md).toContain(`| \`${id}\` |`);
    // the published contract, never a path of the machine that made the report (issue 24)
    expect(md).toMatch(/\*\*Contract rule\*\* \(\[§4\.\d+\]\(https:\/\/[^)\s]*docs\/contract\.md#4\d+-/);
    expect(md).toContain('| **spread_floor** | 0.1 | 0.08 |');
    for (const img of [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!)) expect(fs.existsSync(path.join(out('a'), img))).toBe(true);
  });

  it('writes PNGs at 2× that decode, are not blank, and carry the stamp', () => {
    const md = fs.readFileSync(path.join(out('a'), 'report.md'), 'utf8');
    const range = /This report covers turns (\d+)–(\d+)/.exec(md)!;
    for (const chart of ['spread', 'canary', 'drift', 'orphans']) {
      const bytes = fs.readFileSync(path.join(out('a'), `images/${chart}.png`));
      const img = decode(bytes);
      expect(img.width).toBe(1760); // the 880-pixel figure at twice its size
      expect(pngSize(bytes)).toEqual({ width: img.width, height: img.height });
      const colours = new Set<number>();
      const px = img.data;
      const step = img.channels;
      for (let i = 0; i < px.length; i += step * 7) colours.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!);
      expect(colours.size).toBeGreaterThan(20);
      const stamp = parseStamp(readITxt(bytes)!);
      expect(stamp.figure).toBe(chart);
      expect(stamp.session_id).toBe('all-faults');
      expect(stamp.turns).toEqual({ from: Number(range[1]), to: Number(range[2]) });
      expect(stamp.thresholds).toEqual({ spread_floor: 0.1 });
      expect(stamp.source).toMatchObject({ kind: 'file', name: 'all-faults.jsonl' });
      expect(stamp.exported_at).toBeNull();
      const svg = fs.readFileSync(path.join(out('a'), `images/${chart}.svg`), 'utf8');
      expect(svg).toContain('Session all-faults');
    }
  });

  it('gives the same bytes for the same input and options', () => {
    // the first run compiled the drawing bundle and left V8's code cache; the second ran from it
    expect(cacheAfterFirst).toBe(true);
    expect(incidentAgain.code).toBe(incidentRun.code);
    const a = files(out('a')).filter((f) => f.includes('.'));
    expect(files(out('b')).filter((f) => f.includes('.'))).toEqual(a);
    for (const f of a) expect(fs.readFileSync(path.join(out('b'), f)).equals(fs.readFileSync(path.join(out('a'), f))), f).toBe(true);
  });

  it(
    'a code cache V8 refuses (another Node, a damaged file) is replaced, and the report is the same',
    async () => {
      fs.writeFileSync(CODE_CACHE, Buffer.alloc(4096, 7));
      const run = await runCli(['report', SAMPLE, '--incident', '1', '--set', 'spread_floor=0.1', '--out', out('cache')]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(incidentRun.code);
      for (const f of files(out('a')).filter((x) => x.includes('.')))
        expect(fs.readFileSync(path.join(out('cache'), f)).equals(fs.readFileSync(path.join(out('a'), f))), f).toBe(true);
      const rewritten = fs.readFileSync(CODE_CACHE);
      expect(rewritten.length).toBeGreaterThan(4096);
      expect(rewritten.equals(Buffer.alloc(rewritten.length, 7))).toBe(false);
    },
    LONG,
  );

  it(
    'gives the bytes of charts drawn at the end when it draws them while reading the file, also when a later snapshot changes them',
    async () => {
      const phasesOf = (file: string): string[] =>
        fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { phase: string }).phase);
      const same = (a: string, b: string): void => {
        const names = files(a).filter((f) => f.includes('.'));
        expect(files(b).filter((f) => f.includes('.'))).toEqual(names);
        for (const f of names) expect(fs.readFileSync(path.join(b, f)).equals(fs.readFileSync(path.join(a, f))), f).toBe(true);
      };
      // incident 1 ends long before the file does: its charts are drawn early (run a, above)
      const atEnd = await runCli(['report', SAMPLE, '--incident', '1', '--set', 'spread_floor=0.1', '--out', out('end')], {
        env: { CONTEXT_HEALTH_EARLY_CHARTS: '0' },
      });
      expect(atEnd.code).toBe(incidentRun.code);
      same(out('a'), out('end'));
      // the last snapshot brings a reference agreement (contract §7): the charts of turns 1–20
      // drawn early have no agreement chart; the final ones do, drawn afresh
      const lines = fs.readFileSync(SAMPLE, 'utf8').trimEnd().split('\n');
      lines[lines.length - 1] = lines[lines.length - 1]!.replace('"type":"snapshot",', '"type":"snapshot","reference_agreement":0.5,');
      const late = out('late-agreement.jsonl');
      fs.writeFileSync(late, lines.join('\n') + '\n');
      const phases = out('phases.jsonl');
      const early = await runCli(['report', late, '--turns', '1..20', '--out', out('late')], { env: { CONTEXT_HEALTH_PHASES: phases } });
      const end = await runCli(['report', late, '--turns', '1..20', '--out', out('late-end')], { env: { CONTEXT_HEALTH_EARLY_CHARTS: '0' } });
      expect(early.stderr).toBe('');
      expect(early.code).toBe(end.code);
      expect(files(out('late'))).toContain('images/agreement.png');
      same(out('late-end'), out('late'));
      expect(phasesOf(phases)).toEqual(
        expect.arrayContaining(['charts settled, early drawing posted', 'early charts not the final ones: drawing on a fresh thread']),
      );
    },
    LONG,
  );

  it(
    'stamps the export time only with --timestamp, and writes one self-contained HTML file',
    async () => {
      const run = await runCli(['report', SAMPLE, '--turns', '130..150', '--format', 'html', '--timestamp', '--fail-on', 'never', '--out', out('h')]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(files(out('h'))).toEqual(['report.html']);
      const html = fs.readFileSync(path.join(out('h'), 'report.html'), 'utf8');
      // the four charts and what fills the context (issue 21)
      expect(html.match(/<svg xmlns/g)?.length).toBe(5);
      // nothing loaded from elsewhere; the one outside link is the published contract (issue 24: never a local path)
      expect(html).not.toMatch(/\ssrc="(https?:)?\/\//);
      for (const m of html.matchAll(/\shref="((https?:)?\/\/[^"]*)"/g)) expect(m[1]!.startsWith(STABLE_CONTRACT_URL)).toBe(true);
      const data = JSON.parse(/<script type="application\/json" id="context-health-report">(.*?)<\/script>/s.exec(html)![1]!) as { exportedAt: string };
      expect(Date.parse(data.exportedAt)).toBeGreaterThan(Date.parse('2020-01-01'));
      expect(html).toContain('relevance_collapse');
    },
    LONG,
  );

  it(
    'says which incident or session does not exist, and exits 2',
    async () => {
      const run = await runCli(['report', SAMPLE, '--incident', '999', '--out', out('x')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/incident 999 does not exist: session "all-faults" has incidents 1 to \d+/);
      expect(fs.existsSync(out('x'))).toBe(false);
      const usage = await runCli(['report', SAMPLE, '--turns', '9..3']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('--turns 9..3: the first turn must not be after the last');
    },
    LONG,
  );
});
