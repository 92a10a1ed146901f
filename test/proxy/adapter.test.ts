// The proxy's adapter alone (src/ingest/adapters/proxy/): which session a request continues
// (docs/proxy.md "Sessions"), a rewind pruning without a compaction, and the bound on the
// conversations it keeps.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/wire.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { ProxyAdapter, type CallOutcome } from '../../src/ingest/adapters/proxy/adapter.ts';
import { readRequest, type CapturedRequest } from '../../src/ingest/adapters/proxy/requests.ts';
import { KEPT_THREADS } from '../../src/ingest/adapters/proxy/threads.ts';

const outcome: CallOutcome = { inputTokens: null, model: null, responseId: null, ts: '2026-01-01T00:00:00.000Z', inputErrors: [] };

function anthropic(system: string, messages: unknown[]): CapturedRequest {
  const r = readRequest('anthropic', { model: 'claude-sonnet-4-5', system, messages });
  if ('error' in r) throw new Error(r.error);
  return r;
}

const snapshots = (out: { value: { type: string } }[]): Snapshot[] => out.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');

describe('ProxyAdapter', () => {
  it("a sub-agent's conversation under its parent's session id is a session of its own", () => {
    const a = new ProxyAdapter(nodeSha256);
    const main = snapshots(a.call(anthropic('main agent', [{ role: 'user', content: 'build it' }]), 'S', outcome));
    const sub = snapshots(a.call(anthropic('explore agent', [{ role: 'user', content: 'find the config' }]), 'S', outcome));
    const main2 = snapshots(
      a.call(
        anthropic('main agent', [
          { role: 'user', content: 'build it' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'go on' },
        ]),
        'S',
        outcome,
      ),
    );
    expect(main[0]!.session_id).toBe('S');
    expect(sub[0]!.session_id).toMatch(/^S:[0-9a-f]{8}$/);
    expect([main2[0]!.session_id, main2[0]!.turn]).toEqual(['S', 2]);
  });

  it('a rewind (the same first prompt, later messages gone) prunes them in the same session, with no compaction', () => {
    const a = new ProxyAdapter(nodeSha256);
    const first = [{ role: 'user', content: 'fix the bug' }];
    a.call(anthropic('sys', [...first, { role: 'assistant', content: 'trying A' }, { role: 'user', content: 'no, not that' }]), null, outcome);
    const [s] = snapshots(a.call(anthropic('sys', [...first, { role: 'assistant', content: 'trying B' }]), null, outcome));
    expect(s!.turn).toBe(2);
    expect(s!.pruned).toHaveLength(2);
    expect(s!.compaction).toBeUndefined();
  });

  it("Claude Code's microcompaction (tool results cleared in place) is a microcompact record with no items", () => {
    const a = new ProxyAdapter(nodeSha256);
    const call = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/r/a.ts' } }] };
    const result = (text: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] });
    const task = { role: 'user', content: 'read a.ts' };
    a.call(anthropic('sys', [task, call, result('const a = 1;')]), null, outcome);
    const [s] = snapshots(
      a.call(
        anthropic('sys', [task, call, result('[Old tool result content cleared]'), { role: 'assistant', content: 'done' }, { role: 'user', content: 'next' }]),
        null,
        outcome,
      ),
    );
    expect(s!.compaction).toMatchObject({ kind: 'microcompact', replaced: s!.pruned, summary: [], items: [] });
    expect(s!.pruned).toHaveLength(1);
  });

  it(`keeps ${KEPT_THREADS} conversations; the least recently used is let go, and says which`, () => {
    const a = new ProxyAdapter(nodeSha256);
    const ids: string[] = [];
    for (let i = 0; i <= KEPT_THREADS; i++)
      ids.push(snapshots(a.call(anthropic('sys', [{ role: 'user', content: `task ${i}` }]), null, outcome))[0]!.session_id);
    expect(a.takeForgotten()).toEqual([ids[0]]);
    expect(a.takeForgotten()).toEqual([]);
  });
});
