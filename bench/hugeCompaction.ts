// A Claude Code session with one huge compaction (issue 39, "Bounded amplification"): a prompt
// of `promptChars` characters, a reply, a compact boundary and a summary of `summaryChars`,
// then one more call. Written to `file` once (kept while it exists); its path.
import fs from 'node:fs';
import path from 'node:path';
import { ccAssistant, ccCompactBoundary, ccUser } from '../test/hostile/attacks/transcripts.ts';

/** Words, so no text is one unbroken run (as a real prompt or summary is not). */
function words(chars: number, seed: string): string {
  const unit = `${seed} the retry loop in src/net/client.ts keeps the socket open; `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

export function hugeCompaction(file: string, summaryChars: number, promptChars: number): string {
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [
    ccUser('u1', null, words(promptChars, 'prompt')),
    ccAssistant('a1', 'u1', [{ type: 'text', text: 'Working on it.' }]),
    ccCompactBoundary('c1', 'a1'),
    ccUser('u2', 'c1', `This session is being continued from a previous conversation. Summary: ${words(summaryChars, 'summary')}`, { isCompactSummary: true }),
    ccAssistant('a2', 'u2', [{ type: 'text', text: 'Continuing.' }]),
  ];
  fs.writeFileSync(`${file}.tmp`, lines.join('\n') + '\n');
  fs.renameSync(`${file}.tmp`, file);
  return file;
}
