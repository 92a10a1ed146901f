// What Claude Code's files are, by name: the adapter titles them, `watch` chooses what to read.

/**
 * adapters.md sub-agents: `<session>/subagents/agent-acompact-<id>.jsonl` (agentId
 * `acompact-<id>` or `acompact<id>`) is the call Claude Code made to summarise a compaction,
 * not an agent the user started. Told by the file's name or its agentId.
 */
export function isAutoCompaction(name: string): boolean {
  return /^(agent-)?acompact/.test(name);
}
