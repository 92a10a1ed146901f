// A generated Codex CLI rollout for measuring the adapter's per-call work
// (docs/perf-log/2026-12-03-per-turn.md): `calls` model calls, each a shell function call,
// its token_count event and an output of ~1,500 characters, a new user prompt every 25 calls
// and an assistant message every 5. No compaction, so the context grows to ~2,500 items: the
// cost of emitting the whole context per call shows plainly.
//
//   node --import tsx bench/codexTranscript.ts OUT.jsonl [CALLS]
import fs from 'node:fs';
import { proseSource } from './prose.ts';

const WORDS =
  'login cookie session token retry schema migration table index query cache build test flaky race await promise config option handler request response header'.split(
    ' ',
  );

export function writeCodexRollout(file: string, calls: number): void {
  const prose = proseSource(WORDS, 7);
  const time = '2025-10-04T09:12:00.000Z';
  const line = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: time, type, payload });
  const lines = [line('session_meta', { id: 'bench-codex', timestamp: time, cwd: '/repo', originator: 'codex_cli_rs', cli_version: '0.46.0' })];
  let total = 0;
  for (let c = 1; c <= calls; c++) {
    if (c % 25 === 1) {
      lines.push(line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Task ${c}: ${prose(160)}` }] }));
      lines.push(line('turn_context', { cwd: '/repo', model: 'gpt-5-codex' }));
    }
    const input = 5000 + (c % 200) * 900;
    total += input + 100;
    lines.push(
      line('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', `cargo test ${c}`] }),
        call_id: `call_${c}`,
      }),
    );
    lines.push(
      line('event_msg', {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: total, total_tokens: total }, last_token_usage: { input_tokens: input, total_tokens: input + 100 } },
      }),
    );
    lines.push(
      line('response_item', {
        type: 'function_call_output',
        call_id: `call_${c}`,
        output: JSON.stringify({ output: prose(1500), metadata: { exit_code: 0 } }),
      }),
    );
    if (c % 5 === 0) lines.push(line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: prose(200) }] }));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

if (process.argv[1] !== undefined && process.argv[1].endsWith('bench/codexTranscript.ts')) {
  const [file, calls = '1000'] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: codexTranscript.ts OUT.jsonl [CALLS]');
  writeCodexRollout(file, Number(calls));
}
