// Bad input for the mini-swe-agent reader (docs/adapters.md "mini-swe-agent"): a message
// nested far past the limit, a document cut short, a messages array of hundreds of
// thousands. Each is a clear input error or a bounded result, never a stack trace. Every
// input is generated here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { SweAgentDocument } from '../../src/ingest/adapters/sweAgentDocument.ts';
import { MiniSweAgentCalls } from '../../src/ingest/adapters/miniSweAgent.ts';
import { SkippedRecords } from '../../src/ingest/adapters/skipped.ts';
import { tempDir } from '../relay/helpers.ts';

const HEAD = '{\n  "info": {\n    "mini_version": "1.17.5"\n  },\n  "messages": [\n';
const msg = (m: Record<string, unknown>): string => JSON.stringify(m, null, 2).replace(/^/gm, '    ');
const BASE = [
  msg({ role: 'system', content: 'sys' }),
  msg({ role: 'user', content: 'Do the task' }),
  msg({ role: 'assistant', content: 'ok\n\n```bash\nls\n```', extra: { response: { usage: { prompt_tokens: 50 } } } }),
  msg({ role: 'user', content: 'a.txt' }),
];

function write(name: string, text: string): string {
  const file = path.join(tempDir('ch-mini-hostile-'), name);
  fs.writeFileSync(file, text);
  return file;
}

describe('a mini-swe-agent trajectory that is hostile', () => {
  it('tool-call arguments nested 100k deep are read without walking them; the turns stand', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const bad = `    {"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "function": {"name": "bash", "arguments": ${deep}}}]}`;
    const file = write('deep.traj.json', HEAD + [...BASE, bad, msg({ role: 'assistant', content: 'done' })].join(',\n') + '\n  ]\n}\n');
    const result = await checkTranscript(file, { userThresholds: {} });
    expect(result.report.input_errors).toEqual([]);
    expect(result.report.sessions[0]!.turns).toBe(3);
  });

  it('the same on one line (read parsed) is read the same', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const text = `{"info": {"mini_version": "2.0.0"}, "messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": "x", "tool_calls": [{"function": {"name": "bash", "arguments": ${deep}}}]}, {"role": "assistant", "content": "y"}]}`;
    const file = write('deep-line.traj.json', text + '\n');
    const result = await checkTranscript(file, { userThresholds: {} });
    expect(result.report.input_errors).toEqual([]);
    expect(result.report.sessions[0]!.turns).toBe(2);
  });

  it('a document cut short (still being written) keeps the calls read and counts a truncated last line', async () => {
    const text = HEAD + [...BASE, msg({ role: 'assistant', content: 'two', extra: { response: { usage: { prompt_tokens: 80 } } } })].join(',\n');
    const file = write('cut.traj.json', text.slice(0, text.length - 20));
    const result = await checkTranscript(file, { userThresholds: {} });
    expect(result.adapter).toEqual({ format: 'swe-agent', skipped: { 'truncated last line': 1 } });
    expect(result.report.input_errors).toEqual([]);
    expect(result.report.sessions[0]!.turns).toBe(1);
  });

  it('300k messages the model never saw are counted, streamed one at a time through check', async () => {
    const N = 300_000;
    const parts = [...BASE];
    for (let i = 0; i < N; i++) parts.push(`    {"role": "exit", "content": "${i}"}`);
    parts.push(msg({ role: 'assistant', content: 'last', extra: { response: { usage: { prompt_tokens: 90 } } } }));
    const file = write('many.traj.json', HEAD + parts.join(',\n') + '\n  ],\n  "trajectory_format": "mini-swe-agent-1"\n}\n');
    const result = await checkTranscript(file, { userThresholds: {} });
    expect(result.adapter).toEqual({ format: 'swe-agent', skipped: { 'exit message (not sent to the model)': N } });
    expect(result.report.sessions[0]!.turns).toBe(2);
  }, 120_000);

  it('the document reader hands a million messages on one at a time (its own count, no engine)', () => {
    let seen = 0;
    let snapshots = 0;
    const skipped = new SkippedRecords();
    const calls = new MiniSweAgentCalls('s', skipped);
    const doc = new SweAgentDocument({
      decided: () => null,
      decidedMini: () => {
        const message = calls.message.bind(calls);
        calls.message = function* (m: unknown) {
          seen++;
          yield* message(m);
        };
        return calls;
      },
      snapshots: (made) => {
        for (const s of made()) if (s.type === 'snapshot') snapshots++;
      },
      error: (line, message) => {
        throw new Error(`${line}: ${message}`);
      },
      truncated: () => undefined,
      loneSurrogate: () => undefined,
    });
    doc.push('{"info": {"mini_version": "2.0.0"}, "messages": [', 1);
    doc.push('{"role": "user", "content": "task"},', 2);
    for (let i = 0; i < 1_000_000; i++) doc.push(`{"content": "m${i}"},`, i + 3);
    doc.push('{"role": "assistant", "content": "end"}]}', 1_000_003);
    doc.end(1_000_003);
    expect(doc.reading).toBe(true);
    expect(seen).toBe(1_000_002);
    expect(snapshots).toBe(1);
    expect(skipped.toRecord()).toEqual({ 'message without role': 1_000_000 });
  });
});
