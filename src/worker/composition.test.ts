// contract §8.7–§8.8 through the Worker: a Claude Code session dropped on the page gives the
// composition chart the engine's tokens_by_kind (bands summing to tokens_total, in a fixed
// order), its context window, and labels for every span the turn panel, the lineage and the
// findings name; a native session without kinds is drawn by role, or as one band.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- check is run as a user runs it
import { execFileSync } from 'node:child_process';
// eslint-disable-next-line no-restricted-imports -- the fixture is read from disk
import fs from 'node:fs';
// eslint-disable-next-line no-restricted-imports -- paths of the fixture and the executable
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Controller } from './controller.ts';
import type { FindingDetail, QueryKind, QueryMap, SeriesView, TurnDetail, WorkerEvent } from './protocol.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

async function open(text: string, name: string) {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 1 });
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file: new Blob([text]) as File, name }, userThresholds: {} });
  for (let i = 0; i < 2000 && !events.some((e) => e.type === 'done'); i++) await new Promise((r) => setTimeout(r, 5));
  const done = events.find((e): e is Extract<WorkerEvent, { type: 'done' }> => e.type === 'done')!;
  let req = 0;
  const ask = <K extends QueryKind>(kind: K, query: QueryMap[K]['query']): QueryMap[K]['reply'] => {
    const r = ++req;
    c.handle({ type: 'query', job: 1, req: r, kind, query } as never);
    const reply = events.find((e): e is Extract<WorkerEvent, { type: 'reply'; ok: true }> => e.type === 'reply' && e.req === r && e.ok);
    if (reply === undefined) throw new Error(`no reply to ${kind}`);
    return reply.body as QueryMap[K]['reply'];
  };
  return { summary: done.summary, ask };
}

describe('composition and labels through the Worker', () => {
  it('draws tokens_by_kind as check --json gives it, bands summing to tokens_total, with the window and the labels', async () => {
    const check = JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'bin/context-health.mjs'), 'check', FIXTURE, '--json'], { encoding: 'utf8' })) as {
      sessions: {
        session_id: string;
        metrics: { turn: number; tokens_total: number; tokens_by_kind: Record<string, number> }[];
        findings: { span_ids: string[] }[];
        context_window?: { tokens: number };
      }[];
    };
    const oracle = check.sessions[0]!;
    const { summary, ask } = await open(fs.readFileSync(FIXTURE, 'utf8'), 'claude-code.jsonl');
    const sid = summary.sessions[0]!.sessionId;
    expect(summary.sessions[0]!.contextWindow?.tokens).toBe(oracle.context_window?.tokens);
    const view: SeriesView = ask('view', { sessionId: sid, window: null, points: 400, ribbon: 100 });
    const c = view.composition;
    expect(c.source).toBe('kind');
    // the fixed part at the bottom
    expect(c.bands[0]!.key).toBe('system');
    oracle.metrics.forEach((m, i) => {
      expect(c.x[i]).toBe(m.turn);
      const sum = c.bands.reduce((a, b) => a + b.tokens[i]!, 0);
      expect(sum).toBe(m.tokens_total);
      for (const [kind, tokens] of Object.entries(m.tokens_by_kind)) expect(c.bands.find((b) => b.key === kind)?.tokens[i]).toBe(tokens);
    });
    // the turn panel: the turn's kinds largest first, its largest spans, labels for the spans it names
    const last = oracle.metrics.at(-1)!;
    const turn = ask('turn', { sessionId: sid, turn: last.turn, graph: true }) as TurnDetail;
    expect(Object.fromEntries(turn.composition.map((k) => [k.kind, k.tokens]))).toEqual(last.tokens_by_kind);
    expect(turn.composition.map((k) => k.tokens)).toEqual([...turn.composition.map((k) => k.tokens)].sort((a, b) => b - a));
    expect(turn.largest!.length).toBeGreaterThan(0);
    expect(turn.spans!.every((s) => typeof s.label === 'string' && s.label !== '' && s.label !== s.spanId)).toBe(true);
    // findings name their spans by label
    const at = oracle.findings.findIndex((f) => f.span_ids.length > 0);
    expect(at).toBeGreaterThanOrEqual(0);
    const [named] = ask('findingDetails', { sessionId: sid, indices: [at] }) as FindingDetail[];
    expect(named!.spanIds).toEqual(oracle.findings[at]!.span_ids);
    for (const id of named!.spanIds) expect(named!.labels[id]).toEqual(expect.any(String));
  });

  it('draws a native session by its spans’ roles, and one without roles as one band', async () => {
    const line = (turn: number, spans: object[]) => JSON.stringify({ type: 'snapshot', session_id: 's', turn, spans });
    const header = JSON.stringify({ type: 'session', session_id: 's', version: 1 });
    const withRoles = [
      header,
      line(1, [
        { span_id: 'a', text: 'x', tokens: 10, role: 'system', score: 0.5, text_sha256: null },
        { span_id: 'b', text: 'y', tokens: 5, role: 'user', score: 0.5, text_sha256: null },
      ]),
    ].join('\n');
    const r = await open(withRoles, 'native.jsonl');
    const c = (r.ask('view', { sessionId: 's', window: null, points: 100, ribbon: 10 }) as SeriesView).composition;
    expect(c.source).toBe('role');
    expect(c.bands.map((b) => [b.key, b.tokens[0]])).toEqual([
      ['system', 10],
      ['user', 5],
    ]);
    const bare = [header, line(1, [{ span_id: 'a', text: 'x', tokens: 10, score: 0.5, text_sha256: null }])].join('\n');
    const b = await open(bare, 'bare.jsonl');
    const cb = (b.ask('view', { sessionId: 's', window: null, points: 100, ribbon: 10 }) as SeriesView).composition;
    expect(cb.source).toBe('total');
    expect(cb.bands.map((x) => [x.key, x.tokens[0]])).toEqual([['context', 10]]);
  });
});
