// When `report` may draw its charts before the file is read to the end (src/render/report.ts,
// docs/reports.md "Speed"): the sink says so once the charts' turns are final, and the input
// made then must give the charts of the input made at the end, or the drawing side must tell
// them apart (it then draws afresh). Read in-process by the engine, line by line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { nodeSha256 } from '../node/platform.ts';
import type { ReportJob } from '../report/renderer.ts';
import type { DrawJob } from './draw.ts';
import { renderer } from './report.ts';
import { sameCharts } from './sameValue.ts';

const SAMPLE = path.resolve(import.meta.dirname, '../../public/samples/all-faults.jsonl');
const SHA = 'ab'.repeat(32);

const job = (scope: ReportJob['scope'], sha256: string | null, sessionId: string | null = null): ReportJob => ({
  scope,
  format: 'md',
  exportedAt: null,
  source: { kind: 'file', name: 'all-faults.jsonl', sha256 },
  sessionId,
  userThresholds: {},
  contractUrl: 'contract.md',
  fontDir: 'fonts',
});

/** Reads `file` as `report` does (without its scoring stage: the sample's spans carry scores); the input made when the sink said the charts were settled (its sha256 filled in as the drawing thread does), and the one made at the end. */
async function inputs(
  file: string,
  scope: ReportJob['scope'],
  sessionId: string | null = null,
): Promise<{ early: DrawJob | null; final: DrawJob; turnsAtSettle: number; turns: number }> {
  let early: DrawJob | null = null;
  let turnsRead = 0;
  let turnsAtSettle = -1;
  const sink = renderer.sink({}, scope, {
    sessionId,
    onSettled: () => {
      expect(early).toBeNull(); // once
      turnsAtSettle = turnsRead;
      const made = renderer.analyse(sink, job(scope, null, sessionId)).draw as DrawJob;
      expect(made.stamp.source).toMatchObject({ sha256: null });
      early = { ...made, stamp: { ...made.stamp, source: { kind: 'file', name: 'all-faults.jsonl', sha256: SHA } } };
    },
  });
  const engine = new Engine({ sha256: nodeSha256 });
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const o = engine.ingestLine(line, i + 1);
      if (o.kind === 'turn') turnsRead++;
      sink.take(o);
    });
  const final = renderer.analyse(sink, job(scope, SHA, sessionId)).draw as DrawJob;
  return { early, final, turnsAtSettle, turns: turnsRead };
}

describe("report's early charts", () => {
  it('are settled for an incident once it has ended and the file is read past its margin, and equal the final ones', async () => {
    const { early, final, turnsAtSettle, turns } = await inputs(SAMPLE, { kind: 'incident', number: 1 });
    expect(early).not.toBeNull();
    expect(sameCharts(early!, final)).toBe(true);
    // settled at the first snapshot after the window, long before the end of the file
    expect(turnsAtSettle).toBe(final.view.to + 1);
    expect(turnsAtSettle).toBeLessThan(turns);
    expect(final.data.focus!.lastTurn).toBeLessThan(final.view.to);
  });

  it('are settled for --turns once a later snapshot is read, and equal the final ones', async () => {
    const { early, final, turnsAtSettle } = await inputs(SAMPLE, { kind: 'turns', from: 100, to: 140 });
    expect(sameCharts(early!, final)).toBe(true);
    expect(turnsAtSettle).toBe(141);
    expect(final.view.turns[0]).toBe(100);
    expect(final.view.turns.length).toBe(41); // the session-wide columns cut to the window
    expect(final.view.ribbon.length).toBe(0);
  });

  it('are never settled for the whole session, nor for an incident that runs to the end', async () => {
    expect((await inputs(SAMPLE, { kind: 'session' })).early).toBeNull();
    const { early, final } = await inputs(SAMPLE, { kind: 'turns', from: 100, to: 150 });
    expect(early).toBeNull();
    expect(final.view.to).toBe(150);
  });

  it('are told apart from the final ones when a later snapshot changes what they show', async () => {
    // the last snapshot carries a reference agreement (contract §7): the spread chart's
    // agreement series, null while no snapshot had one, is not null at the end
    const lines = fs.readFileSync(SAMPLE, 'utf8').trimEnd().split('\n');
    lines[lines.length - 1] = lines[lines.length - 1]!.replace('"type":"snapshot",', '"type":"snapshot","reference_agreement":0.5,');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-early-'));
    const file = path.join(dir, 'late-agreement.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    try {
      const { early, final } = await inputs(file, { kind: 'turns', from: 1, to: 20 });
      expect(early!.view.spread.agreement).toBeNull();
      expect(final.view.spread.agreement).not.toBeNull();
      expect(sameCharts(early!, final)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('wait for the end when the file names another session first', async () => {
    const other = '{"type":"session","session_id":"other","title":"named first, no snapshot yet"}\n';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-early-'));
    const file = path.join(dir, 'two.jsonl');
    fs.writeFileSync(file, other + fs.readFileSync(SAMPLE, 'utf8'));
    try {
      expect((await inputs(file, { kind: 'incident', number: 1 })).early).toBeNull();
      // named with --session, it is known to be the one from its first snapshot
      const named = await inputs(file, { kind: 'incident', number: 1 }, 'all-faults');
      expect(sameCharts(named.early!, named.final)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
