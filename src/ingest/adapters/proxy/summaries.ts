// docs/proxy.md "Compactions": how a request shows that the agent compacted its context. A
// compacted conversation is sent again with its earlier messages replaced by a summary the
// model wrote, at the start, in a user message; the agents word it their own way, and these
// are the words they open it with. The call that asks for the summary is recognised too:
// its window is the one being compacted, so its size is the compaction's `pre_tokens`.
import type { CallMessage } from './requests.ts';

/** the opening words of a summary message, per agent */
const SUMMARY_OPENINGS: readonly string[] = [
  // Claude Code (its compaction summary prompt)
  'This session is being continued from a previous conversation',
  // Codex CLI (codex-rs core/templates/compact/summary_prefix.md)
  'Another language model started to solve this problem and produced a summary of its thinking process',
  // Aider (its ChatSummary's prefix)
  'I spoke to you previously about a number of things',
];

/** Claude Code's request for the summary ("/compact" and auto-compaction) */
const SUMMARY_REQUESTS: readonly string[] = ['Your task is to create a detailed summary of the conversation so far'];

function texts(m: CallMessage): string {
  return m.parts
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** The index of the message holding a compaction summary, when one of the first two user messages is one; else -1. */
export function summaryMessage(messages: readonly CallMessage[]): number {
  let users = 0;
  for (let i = 0; i < messages.length && users < 2; i++) {
    if (messages[i]!.role !== 'user') continue;
    users++;
    const text = texts(messages[i]!).trimStart();
    if (SUMMARY_OPENINGS.some((o) => text.startsWith(o) || text.includes(`\n${o}`))) return i;
  }
  return -1;
}

/** The request asks the model to summarise the conversation (the agent's own compaction call). */
export function asksForSummary(messages: readonly CallMessage[]): boolean {
  const last = messages.at(-1);
  if (last === undefined || last.role !== 'user') return false;
  const text = texts(last);
  return SUMMARY_REQUESTS.some((r) => text.includes(r));
}
