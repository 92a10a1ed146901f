// contract §8.7–§8.8 on imported sessions as `check` reads them: tokens by kind summing to
// the total on every turn of every agent fixture, the context window and where it came from,
// context_pressure at its threshold, and a label on every span.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { ClaudeCodeAdapter } from '../../src/ingest/adapters/claudeCode.ts';
import { TranscriptPipeline } from '../../src/ingest/adapters/pipeline.ts';
import type { Snapshot } from '../../src/core/wire.ts';
import { ROOT, runCli } from '../cli/runCli.ts';
import { TranscriptBuilder } from './claudeCodeTranscript.ts';

const FIXTURES = ['claude-code.jsonl', 'codex-rollout.jsonl', 'codex-legacy.jsonl', 'swe-agent.traj', 'swe-agent-messages.traj', 'swe-agent-history.traj'].map(
  (f) => path.join(ROOT, 'test/fixtures/adapters', f),
);

function write(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ch-comp-')), 's.jsonl');
  fs.writeFileSync(file, text);
  return file;
}

describe('contract §8.7 tokens_by_kind', () => {
  it.each(FIXTURES)('%s: every turn has tokens_by_kind, summing exactly to tokens_total', async (file) => {
    const { report } = await checkTranscript(file, { userThresholds: {} });
    const metrics = report.sessions.flatMap((s) => s.metrics);
    expect(metrics.length).toBeGreaterThan(0);
    for (const m of metrics) {
      expect(m.tokens_by_kind, `turn ${m.turn}`).toBeDefined();
      expect(
        Object.values(m.tokens_by_kind!).reduce((a, b) => a + b, 0),
        `turn ${m.turn}`,
      ).toBe(m.tokens_total);
    }
  });

  it('Claude Code: the kinds a person asks about, tool results by tool', async () => {
    const { report } = await checkTranscript(FIXTURES[0]!, { userThresholds: {} });
    const kinds = new Set(report.sessions[0]!.metrics.flatMap((m) => Object.keys(m.tokens_by_kind!)));
    for (const k of ['system', 'user', 'thinking', 'tool_use', 'summary', 'meta']) expect(kinds, k).toContain(k);
    expect([...kinds].some((k) => k.startsWith('tool_result:'))).toBe(true);
  });

  it('a version-1 sample has none (its output is unchanged)', async () => {
    const { report } = await checkTranscript(path.join(ROOT, 'public/samples/all-faults.jsonl'), { userThresholds: {} });
    expect(report.sessions[0]!.metrics.some((m) => m.tokens_by_kind !== undefined)).toBe(false);
    expect(report.sessions[0]!.context_window).toBeUndefined();
  });
});

describe('contract §8.7 context window and context_pressure', () => {
  const growing = (): TranscriptBuilder => {
    const b = new TranscriptBuilder();
    b.prompt('Port the parser to the new API');
    for (const input of [50_000, 120_000, 160_000, 170_000, 90_000, 165_000]) b.call(input, [{ type: 'text', text: 'working' }]);
    return b;
  };

  it('the window comes from the model table; pressure fires on the first turn of each run at 80%', async () => {
    const s = (await checkTranscript(write(growing().text()), { userThresholds: {} })).report.sessions[0]!;
    expect(s.context_window).toEqual({ tokens: 200_000, source: 'model', model: 'claude-sonnet-4-5' });
    // 160k is exactly 80% of 200k: at the threshold it fires
    expect(s.findings.filter((f) => f.signal === 'context_pressure').map((f) => f.turn)).toEqual([3, 6]);
    expect(s.findings.find((f) => f.turn === 1)).toBeUndefined();
  });

  it('pressure_threshold moves it; a call past 200k shows the 1M variant', async () => {
    const file = write(growing().text());
    const s = (await checkTranscript(file, { userThresholds: { pressure_threshold: 0.6 } })).report.sessions[0]!;
    expect(s.findings.filter((f) => f.signal === 'context_pressure').map((f) => f.turn)).toEqual([2, 6]);
    const big = new TranscriptBuilder();
    big.prompt('Read the whole monorepo');
    for (const input of [150_000, 250_000, 300_000]) big.call(input, [{ type: 'text', text: 'reading' }]);
    const one = (await checkTranscript(write(big.text()), { userThresholds: {} })).report.sessions[0]!;
    expect(one.context_window).toMatchObject({ tokens: 1_000_000, source: 'model' });
    expect(one.findings.filter((f) => f.signal === 'context_pressure')).toEqual([]);
  });

  it('without a model, the header, then --context-window', async () => {
    const codex = (await checkTranscript(FIXTURES[1]!, { userThresholds: {} })).report.sessions[0]!;
    expect(codex.context_window?.source).toBe('header');
    const swe = (await checkTranscript(FIXTURES[3]!, { userThresholds: {}, contextWindow: 100 })).report.sessions[0]!;
    expect(swe.context_window).toEqual({ tokens: 100, source: 'option' });
    expect(swe.findings.some((f) => f.signal === 'context_pressure')).toBe(true);
    const bad = await runCli(['check', FIXTURES[3]!, '--context-window', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--context-window expects a whole number/);
  });
});

describe('contract §8.8 labels (Claude Code)', () => {
  it('every span has a short label from what it is; results name their call; no label is a UUID', () => {
    const a = new ClaudeCodeAdapter('x');
    const lines = fs.readFileSync(FIXTURES[0]!, 'utf8').split('\n');
    const snaps: Snapshot[] = [];
    lines.forEach((l, i) => {
      try {
        for (const m of a.record(JSON.parse(l), i + 1)) if (m.value.type === 'snapshot') snaps.push(m.value);
      } catch {
        // the fixture's truncated last line
      }
    });
    const spans = snaps.flatMap((s) => s.spans);
    for (const s of spans) {
      expect(typeof s.label, s.span_id).toBe('string');
      expect((s.label as string).length).toBeLessThanOrEqual(60);
      expect(s.label).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
    }
    const labels = new Set(spans.map((s) => s.label as string));
    expect([...labels].some((l) => /^Read /.test(l))).toBe(true);
    expect([...labels].some((l) => /^result of Read /.test(l))).toBe(true);
    expect(labels).toContain('thinking');
    expect(labels).toContain('compaction summary');
  });
});

describe('contract §8.8 labels on every imported agent', () => {
  it.each(FIXTURES)('%s: every span of every snapshot has a short label', (file) => {
    const spans: { span_id: string; label?: unknown }[] = [];
    const pipeline = new TranscriptPipeline({
      text: () => undefined,
      value: (v) => {
        const m = v as { type?: string; spans?: { span_id: string; label?: unknown }[] };
        if (m.type === 'snapshot') spans.push(...(m.spans ?? []));
      },
      error: () => undefined,
    });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((l, i) => pipeline.line(l, i + 1));
    pipeline.end();
    expect(spans.length).toBeGreaterThan(0);
    for (const s of spans) {
      expect(typeof s.label, `${s.span_id}`).toBe('string');
      expect((s.label as string).length).toBeLessThanOrEqual(60);
    }
  });
});

describe('contract §8.7 OpenAI models in the table', () => {
  const text = 'Port the parser';
  const sha = crypto.createHash('sha256').update(text).digest('hex');
  const wire = (model: string, tokens: number[], header: Record<string, unknown> = {}): string =>
    [
      JSON.stringify({ type: 'session', session_id: 'oa', ...header }),
      ...tokens.map((t, i) =>
        JSON.stringify({
          type: 'snapshot',
          session_id: 'oa',
          turn: i + 1,
          model,
          tokens_total: t,
          spans: [{ span_id: 'p', text, text_sha256: sha, tokens: 10, score: null, role: 'user', label: 'Port the parser' }],
        }),
      ),
    ].join('\n') + '\n';

  it('gpt-5 takes 272,000 of context; a bigger call does not make it a 1M variant', async () => {
    const s = (await checkTranscript(write(wire('gpt-5-codex', [100_000, 230_000, 280_000])), { userThresholds: {} })).report.sessions[0]!;
    expect(s.context_window).toEqual({ tokens: 272_000, source: 'model', model: 'gpt-5-codex' });
  });

  it.each([
    ['gpt-4o-2024-08-06', 128_000],
    ['openai/gpt-4.1-mini', 1_047_576],
    ['o3', 200_000],
    ['o4-mini-2025-04-16', 200_000],
  ])('%s: %d tokens', async (model, tokens) => {
    const s = (await checkTranscript(write(wire(model, [1_000])), { userThresholds: {} })).report.sessions[0]!;
    expect(s.context_window).toEqual({ tokens, source: 'model', model });
  });

  it("the header's own figure wins over an OpenAI entry, not over Anthropic's", async () => {
    const oa = (await checkTranscript(write(wire('gpt-5', [1_000], { context_window: 258_400 })), { userThresholds: {} })).report.sessions[0]!;
    expect(oa.context_window).toEqual({ tokens: 258_400, source: 'header' });
    const cl = (await checkTranscript(write(wire('claude-opus-4-1', [1_000], { context_window: 50_000 })), { userThresholds: {} })).report.sessions[0]!;
    expect(cl.context_window).toEqual({ tokens: 200_000, source: 'model', model: 'claude-opus-4-1' });
    const none = (await checkTranscript(write(wire('llama-3.3-70b', [1_000])), { userThresholds: {} })).report.sessions[0]!;
    expect(none.context_window).toBeUndefined();
  });
});
