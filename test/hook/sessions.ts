// Claude Code sessions with compactions, built record by record in Claude Code's shapes
// (test/adapters/claudeCodeTranscript.ts, docs/adapters.md "Claude Code"), for the hook's
// tests and `npm run bench -- handback`. A stretch: the user's prompts, reads and edits of
// files, a todo list, then a compact boundary and a summary that names some of it and
// paraphrases or drops the rest. `cutAfterSummary` ends the file there, as the transcript
// stands when Claude Code runs the SessionStart hook.
import { TranscriptBuilder } from '../adapters/claudeCodeTranscript.ts';

export interface StretchPlan {
  prompts: string[];
  /** prompts the summary quotes word for word */
  quoted: number;
  reads: string[];
  edits: string[];
  /** files (basenames) the summary names */
  named: string[];
  todos: string[];
}

export function buildSession(stretches: StretchPlan[], cutAfterSummary = true, sessionId = 'cc-audit', filler = 0): TranscriptBuilder {
  const b = new TranscriptBuilder(sessionId);
  let tokens = 2000;
  stretches.forEach((s, si) => {
    for (const p of s.prompts) {
      b.prompt(p);
      b.call((tokens += 500), [{ type: 'text', text: `Working on it: ${p.slice(0, 40)}` }]);
    }
    for (const r of s.reads) b.toolCall((tokens += 800), [b.tool('Read', { file_path: r })], `contents of ${r}\n${'x'.repeat(filler)}`);
    for (const e of s.edits) b.toolCall((tokens += 300), [b.tool('Edit', { file_path: e, old_string: 'a', new_string: 'b' })], 'The file has been updated.');
    if (s.todos.length > 0)
      b.toolCall(
        (tokens += 100),
        [b.tool('TodoWrite', { todos: s.todos.map((t, i) => ({ content: t, status: i === 0 ? 'in_progress' : 'pending', activeForm: t })) })],
        'Todos have been modified successfully.',
      );
    b.boundary('auto', tokens);
    const quoted = s.prompts.slice(0, s.quoted).map((p) => `The user asked: "${p}"`);
    b.summary(
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n' +
        `Stretch ${si + 1}. ${quoted.join(' ')} Files touched: ${s.named.join(', ')}.`,
    );
    tokens = 3000;
    const last = si === stretches.length - 1;
    if (!last || !cutAfterSummary) b.call(tokens, [{ type: 'text', text: 'Continuing.' }]);
  });
  return b;
}
