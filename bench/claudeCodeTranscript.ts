// A generated Claude Code session transcript for the reference-scorer benchmark, cached in
// bench/out/ by its parameters: `calls` API calls, each a split assistant message
// (text + tool_use) and a tool result of ~`resultChars` characters, a new user prompt every
// 25 calls, a microcompaction every 50 and a compaction every 200 (so the context stays
// the size a real session's does: a few hundred blocks).
import fs from 'node:fs';
import path from 'node:path';
import { OUT } from './transcripts.ts';
import { prose as wordProse } from './prose.ts';

const WORDS =
  'login cookie session token retry schema migration table index query cache build test flaky race await promise config option handler request response header'.split(
    ' ',
  );

const prose = (seed: number, chars: number): string => wordProse(WORDS, seed, chars);

/**
 * `reads`: every other call reads a file instead of running a command (one of 75 paths, each
 * read again 150 calls later, so compactions have file items to audit and refetch,
 * contract §8.4; bench/audit.ts). Without it the
 * transcript is byte for byte the one bench/reference.ts has always measured.
 */
export function claudeCodeTranscript(calls: number, resultChars: number, reads = false): string {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `claude-code-${calls}x${resultChars}${reads ? '-reads' : ''}.jsonl`);
  if (fs.existsSync(file)) return file;
  writeClaudeCodeSession(file, calls, resultChars, reads);
  return file;
}

/** The same session written to `file`, under another session id (bench/batch.ts: a folder of them). */
export function writeClaudeCodeSession(file: string, calls: number, resultChars: number, reads = false, sessionId = 'bench-cc'): void {
  const lines: string[] = [];
  const base = { sessionId, isSidechain: false, timestamp: '2026-11-30T10:00:00.000Z' };
  let parent: string | null = null;
  const push = (r: Record<string, unknown>): void => {
    lines.push(JSON.stringify({ ...base, parentUuid: parent, ...r }));
    parent = r.uuid as string;
  };
  let context = 0;
  for (let c = 1; c <= calls; c++) {
    if (c % 25 === 1) push({ type: 'user', uuid: `p${c}`, message: { role: 'user', content: `Task ${c}: ${prose(c, 160)}` } });
    if (c % 200 === 0) {
      push({ type: 'system', subtype: 'compact_boundary', uuid: `c${c}`, compactMetadata: { trigger: 'auto', preTokens: context } });
      push({ type: 'user', uuid: `s${c}`, isCompactSummary: true, message: { role: 'user', content: `Summary: ${prose(c + 7, 2000)}` } });
      context = 600;
    }
    if (c % 50 === 0)
      push({
        type: 'system',
        subtype: 'microcompact_boundary',
        uuid: `m${c}`,
        microcompactMetadata: { trigger: 'auto', preTokens: context, tokensSaved: 100, compactedToolIds: [`toolu_${c - 40}`, `toolu_${c - 39}`] },
      });
    context += Math.ceil(resultChars / 4) + 60;
    const usage = { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: context, output_tokens: 50 };
    const message = (content: unknown[]) => ({ id: `msg_${c}`, role: 'assistant', model: 'claude-sonnet-4-5', content, usage });
    push({ type: 'assistant', uuid: `a${c}`, requestId: `req_${c}`, message: message([{ type: 'text', text: prose(c * 3, 200) }]) });
    push({
      type: 'assistant',
      uuid: `b${c}`,
      requestId: `req_${c}`,
      message: message([
        reads && c % 2 === 0
          ? { type: 'tool_use', id: `toolu_${c}`, name: 'Read', input: { file_path: `/repo/src/module${c % 150}.ts` } }
          : { type: 'tool_use', id: `toolu_${c}`, name: 'Bash', input: { command: prose(c * 5, 60) } },
      ]),
    });
    push({
      type: 'user',
      uuid: `r${c}`,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${c}`, content: prose(c * 11, resultChars) }] },
    });
    if (c % 10 === 0) lines.push(JSON.stringify({ type: 'progress', uuid: `g${c}`, sessionId }));
  }
  fs.writeFileSync(`${file}.tmp`, lines.join('\n') + '\n');
  fs.renameSync(`${file}.tmp`, file);
}
