// contract §2.5 "Past the first 1,000": `check` and the dashboard's Worker keep the first
// 1,000 input errors by line in full and count the rest by reason; the good lines between
// the bad ones are still analysed, and a report of 1,000 errors or fewer has no new key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputErrorList, LISTED_INPUT_ERRORS } from '../../src/core/inputErrorList.ts';
import { inputErrorReason } from '../../src/core/inputErrorReasons.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { checkJson } from '../../src/cli/checkOutput.ts';
import { humanOutput } from '../../src/cli/humanOutput.ts';
import { batchRow, batchTable } from '../../src/cli/batchRows.ts';
import { junkReason, junkTranscript, type JunkTranscript } from './junkTranscript.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'errcap-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `lines` lines, every `every`-th a good snapshot, the rest junk, as one file's text */
function transcript(lines: number, every: number): Omit<JunkTranscript, 'lines'> & { text: string } {
  const { lines: out, ...rest } = junkTranscript(lines, every);
  return { ...rest, text: out.join('\n') + '\n' };
}

describe('InputErrorList', () => {
  it('keeps the first errors by line, ties in arrival order, whatever order they come in, and counts the rest exactly', () => {
    const list = new InputErrorList<{ line: number; message: string; id: number }>(3);
    const lines = [9, 2, 7, 2, 1, 8, 5, 5, 3];
    lines.forEach((line, id) => list.add({ line, message: 'not valid JSON: x', id }));
    expect(list.listed().map((e) => [e.line, e.id])).toEqual([
      [1, 4],
      [2, 1],
      [2, 3],
    ]);
    expect(list.total).toBe(9);
    expect(list.omitted()).toEqual({ count: 6, by_reason: { 'not-json': 6 } });
  });

  it('every error listed: nothing omitted', () => {
    const list = new InputErrorList(3);
    list.add({ line: 2, message: 'm' });
    list.add({ line: 1, message: 'm' });
    expect(list.listed().map((e) => e.line)).toEqual([1, 2]);
    expect(list.omitted()).toBeNull();
  });

  it('holds at most twice the limit at n, 2n and 4n errors: memory does not grow with the input', () => {
    for (const n of [50_000, 100_000, 200_000]) {
      const list = new InputErrorList();
      let most = 0;
      // lines mostly rising, every 7th from far back (as a held adapter record goes at the end)
      for (let i = 0; i < n; i++) {
        list.add({ line: i % 7 === 0 ? n - i : i, message: i % 2 === 0 ? 'not valid JSON: x' : 'a message must be a JSON object, got null' });
        most = Math.max(most, list.held);
      }
      expect(most).toBeLessThanOrEqual(2 * LISTED_INPUT_ERRORS);
      expect(list.listed()).toHaveLength(LISTED_INPUT_ERRORS);
      const omitted = list.omitted()!;
      expect(omitted.count).toBe(n - LISTED_INPUT_ERRORS);
      expect(Object.values(omitted.by_reason).reduce((a, b) => a + b, 0)).toBe(omitted.count);
    }
  });
});

describe('check past the first 1,000 input errors', () => {
  it('200,000 lines, nearly all junk: the first 1,000 in full, the rest counted by reason, the good lines between still analysed', async () => {
    const t = transcript(200_000, 50);
    const file = path.join(dir, 'junk.jsonl');
    fs.writeFileSync(file, t.text);
    const result = await checkTranscript(file, { userThresholds: {}, threads: 1 });
    const { report } = result;
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]!.turns).toBe(t.turns);
    expect(report.input_errors).toHaveLength(LISTED_INPUT_ERRORS);
    expect(report.input_errors.map((e) => e.line)).toEqual(t.errorLines.slice(0, LISTED_INPUT_ERRORS));
    expect(report.input_errors.every((e, i) => inputErrorReason(e.message) === junkReason(t.errorLines[i]!))).toBe(true);
    expect(report.input_errors_omitted).toEqual({
      count: t.errorLines.length - LISTED_INPUT_ERRORS,
      by_reason: { 'not-json': t.byReason.get('not-json'), 'not-object': t.byReason.get('not-object'), 'bad-type': t.byReason.get('bad-type') },
    });
    // the one new key comes right after input_errors (contract §6.1)
    expect(Object.keys(checkJson(result))).toEqual(['sessions', 'input_errors', 'input_errors_omitted']);
    const human = humanOutput(report, 'junk.jsonl');
    expect(human.split('\n')[0]).toBe(`junk.jsonl: 1 session, ${t.turns} turns, ${t.errorLines.length} input errors`);
    const more = t.errorLines.length - 20;
    expect(human).toContain(`  … and ${more} more input errors (not-json: `);
    expect(human).toContain(`; --json lists the first 1000 and counts the rest\n`);
    const row = batchRow('junk.jsonl', 'wire', report);
    expect(row.inputErrors).toBe(t.errorLines.length);
    expect(batchTable([row], 0)).toContain(`(${t.errorLines.length} input errors: the first 1000 listed, … and ${t.errorLines.length - 1000} more (`);
  }, 60_000);

  it('1,000 errors or fewer: no input_errors_omitted, every error listed', async () => {
    const t = transcript(1100, 11); // 1000 junk lines
    expect(t.errorLines).toHaveLength(1000);
    const file = path.join(dir, 'thousand.jsonl');
    fs.writeFileSync(file, t.text);
    const result = await checkTranscript(file, { userThresholds: {}, threads: 1 });
    expect(result.report.input_errors).toHaveLength(1000);
    expect(Object.keys(checkJson(result))).toEqual(['sessions', 'input_errors']);
    expect(humanOutput(result.report, 'f')).toContain('  … and 980 more (see --json)\n');
  });
});
