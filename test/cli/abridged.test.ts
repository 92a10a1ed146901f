// docs/engine.md "Snapshots abridged": a caller that reads a session's summary alone (check's
// human output, its folder table, the local sessions' rows) gets from abridged snapshots what
// it would get from full ones, byte for byte: over the committed Claude Code transcripts, and
// over random transcripts mixing every turn of the context that abridging must notice
// (rewinds, compactions with kept messages, summaries before and after a call, microcompactions,
// rewritten tool results, repeated records, calls without usage or with odd usage, lone
// surrogates, records without uuid).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkTranscript, type CheckOptions, type CheckResult } from '../../src/cli/check.ts';
import { humanOutput } from '../../src/cli/humanOutput.ts';
import { ClaudeCodeAdapter } from '../../src/ingest/adapters/claudeCode.ts';
import type { Snapshot } from '../../src/core/wire.ts';
import { SYSTEM_SPAN_ID } from '../../src/ingest/adapters/claudeCodeSpans.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'context-health-abridged-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const SUMMARY: CheckOptions = { userThresholds: {}, threads: 1, readsReferenceScores: false };

/** What a summary reader reads of a report: every field but the per-span figures. */
function summaryOf(r: CheckResult): unknown {
  return {
    sessions: r.report.sessions.map((s) => ({
      ...s,
      metrics: s.metrics.map(({ tokens_by_kind: _kinds, ...m }) => m),
    })),
    input_errors: r.report.input_errors,
    omitted: r.report.input_errors_omitted,
    titles: [...r.titles],
    sources: [...r.sources],
    adapter: r.adapter,
  };
}

/** The turns' spans the engine was handed, in all. */
async function both(file: string): Promise<{ full: CheckResult; abridged: CheckResult; spans: { full: number; abridged: number } }> {
  const spans = { full: 0, abridged: 0 };
  const full = await checkTranscript(file, { ...SUMMARY, onOutcome: (o) => (spans.full += o.kind === 'turn' ? o.result.metrics.n_spans : 0) });
  const abridged = await checkTranscript(file, {
    ...SUMMARY,
    readsSpanFigures: false,
    onOutcome: (o) => (spans.abridged += o.kind === 'turn' ? o.result.metrics.n_spans : 0),
  });
  return { full, abridged, spans };
}

async function expectSameSummary(file: string): Promise<{ full: number; abridged: number }> {
  const { full, abridged, spans } = await both(file);
  expect(summaryOf(abridged)).toEqual(summaryOf(full));
  expect(humanOutput(abridged.report, file, abridged.titles, abridged.pressureThresholds)).toBe(
    humanOutput(full.report, file, full.titles, full.pressureThresholds),
  );
  return spans;
}

describe('the committed Claude Code transcripts', () => {
  const files = [
    'test/fixtures/adapters/claude-code.jsonl',
    'test/fixtures/adapters/claude-code-other-backend.jsonl',
    'public/samples/agents/claude-code-session.jsonl',
    'e2e/fixtures/claude-code-compactions.jsonl',
    'e2e/fixtures/claude-code-pressure.jsonl',
  ];
  for (const file of files)
    it(`${file}: the same summary and human output, abridged`, async () => {
      await expectSameSummary(file);
    });

  it('abridging leaves spans out (the pressure session: most calls carry the placeholder alone)', async () => {
    const spans = await expectSameSummary('e2e/fixtures/claude-code-pressure.jsonl');
    expect(spans.abridged).toBeLessThan(spans.full / 4);
  });

  it("a caller that reads no per-span figure gets no tokens_by_kind (nothing is made for it); one that reads them gets every turn's", async () => {
    const { full, abridged } = await both('e2e/fixtures/claude-code-compactions.jsonl');
    const kinds = (r: CheckResult): (Record<string, number> | undefined)[] => r.report.sessions.flatMap((s) => s.metrics.map((m) => m.tokens_by_kind));
    expect(kinds(full).length).toBeGreaterThan(0);
    expect(kinds(full).every((k) => k !== undefined && Object.keys(k).length > 0)).toBe(true);
    expect(kinds(abridged)).toEqual(kinds(full).map(() => undefined));
  });

  it('a caller that reads the scores is never abridged, whatever it says of span figures', async () => {
    let spans = 0;
    let abridgedSpans = 0;
    await checkTranscript('e2e/fixtures/claude-code-pressure.jsonl', {
      userThresholds: {},
      threads: 1,
      onOutcome: (o) => (spans += o.kind === 'turn' ? o.result.metrics.n_spans : 0),
    });
    await checkTranscript('e2e/fixtures/claude-code-pressure.jsonl', {
      userThresholds: {},
      threads: 1,
      readsSpanFigures: false,
      onOutcome: (o) => (abridgedSpans += o.kind === 'turn' ? o.result.metrics.n_spans : 0),
    });
    // readsSpanFigures alone, scores read: every span is scored, so none is left out
    expect(abridgedSpans).toBe(spans);
  });
});

type Json = Record<string, unknown>;

/** One step of a random Claude Code transcript. */
type Step =
  | { op: 'prompt'; text: string; back: number | null }
  | { op: 'call'; usage: 'whole' | 'full' | 'small' | 'none' | 'zero' | 'fraction' | 'huge'; byRequest: boolean; again: boolean; tools: number; text: string }
  | { op: 'results'; error: boolean; text: string }
  | { op: 'boundary'; keep: number[] }
  | { op: 'summary'; text: string }
  | { op: 'microcompact'; tools: number[] }
  | { op: 'replace'; tools: number[] }
  | { op: 'repeat'; of: number }
  | { op: 'attachment'; text: string }
  | { op: 'noUuid'; text: string };

const texts = fc.constantFrom('fix the parser', 'run the tests', 'ok', 'error: not found', 'café ☕ 𝄞', 'broken \ud800 half', 'x'.repeat(400));

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('prompt' as const),
      text: texts,
      back: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat(40) }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('call' as const),
      usage: fc.constantFrom('whole', 'whole', 'whole', 'full', 'full', 'small', 'small', 'none', 'zero', 'fraction', 'huge'),
      byRequest: fc.constantFrom(true, true, true, false),
      again: fc.boolean(),
      tools: fc.nat(2),
      text: texts,
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('results' as const), error: fc.boolean(), text: texts }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('boundary' as const), keep: fc.array(fc.nat(40), { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('summary' as const), text: texts }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('microcompact' as const), tools: fc.array(fc.nat(20), { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replace' as const), tools: fc.array(fc.nat(20), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('repeat' as const), of: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('attachment' as const), text: texts }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('noUuid' as const), text: texts }) },
);

/** The steps as a transcript's lines: records chained by parentUuid, a prompt now and then going back to an earlier one. */
function transcript(steps: readonly Step[]): string {
  const records: Json[] = [];
  const uuids: string[] = [];
  let tools = 0;
  let calls = 0;
  let open: string[] = [];
  const base = (type: string, extra: Json, parent: string | null = uuids.at(-1) ?? null): Json => {
    const uuid = `u${records.length + 1}`;
    uuids.push(uuid);
    return { type, uuid, parentUuid: parent, sessionId: 'abridged', isSidechain: false, timestamp: '2026-12-05T10:00:00.000Z', ...extra };
  };
  for (const s of steps) {
    switch (s.op) {
      case 'prompt':
        records.push(
          base('user', { message: { role: 'user', content: s.text } }, s.back === null || uuids.length === 0 ? undefined : uuids[s.back % uuids.length]!),
        );
        break;
      case 'call': {
        if (!s.again || calls === 0) calls++;
        // `full`: past the pressure threshold of the model's window (context_pressure, contract §8.7)
        const input = {
          whole: 2000 + 37 * records.length,
          full: 150000 + 997 * records.length,
          // `small`: less than the context's estimates, which are then scaled down to it (adapters.md tokens)
          small: 40 + records.length,
          none: null,
          zero: 0,
          fraction: 1500.5,
          huge: 2 ** 60,
        }[s.usage];
        const usage = input === null ? undefined : { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 };
        const uses = Array.from({ length: s.tools }, () => ({ type: 'tool_use', id: `toolu_${++tools}`, name: 'Bash', input: { command: `ls ${tools}` } }));
        open = uses.map((u) => u.id);
        const message = {
          role: 'assistant',
          id: `msg_${calls}`,
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: s.text }, ...uses],
          ...(usage ? { usage } : {}),
        };
        records.push(base('assistant', { ...(s.byRequest ? { requestId: `req_${calls}` } : {}), message }));
        break;
      }
      case 'results':
        records.push(
          base('user', {
            message: {
              role: 'user',
              content: open.map((id) => ({ type: 'tool_result', tool_use_id: id, content: s.text, ...(s.error ? { is_error: true } : {}) })),
            },
          }),
        );
        open = [];
        break;
      case 'boundary': {
        const kept = s.keep.filter(() => uuids.length > 0).map((k) => uuids[k % uuids.length]!);
        const meta: Json = { trigger: 'auto', preTokens: 150000 };
        if (kept.length > 0) meta.preservedMessages = { anchorUuid: uuids.at(-1), uuids: kept, allUuids: kept };
        records.push(base('system', { subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: meta }));
        break;
      }
      case 'summary':
        records.push(base('user', { isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: `Summary: ${s.text}` } }));
        break;
      case 'microcompact':
        records.push(
          base('system', {
            subtype: 'microcompact_boundary',
            microcompactMetadata: { trigger: 'auto', preTokens: 90000, tokensSaved: 10, compactedToolIds: s.tools.map((t) => `toolu_${t}`) },
          }),
        );
        break;
      case 'replace':
        records.push(
          base('content-replacement', { replacements: s.tools.map((t) => ({ kind: 'tool-result', toolUseId: `toolu_${t}`, replacement: '[saved to disk]' })) }),
        );
        break;
      case 'repeat':
        if (records.length > 0) records.push(records[s.of % records.length]!);
        break;
      case 'attachment':
        records.push(base('attachment', { attachment: { type: 'todo_reminder', content: [], itemCount: 0 } }));
        break;
      case 'noUuid': {
        const r = base('user', { message: { role: 'user', content: s.text } });
        delete r.uuid;
        uuids.pop();
        records.push(r);
        break;
      }
    }
  }
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

describe('random Claude Code transcripts', () => {
  it('the same summary and human output, abridged or not', async () => {
    let n = 0;
    let abridgedRuns = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 80 }), async (steps) => {
        const file = path.join(dir, `random-${n++}.jsonl`);
        fs.writeFileSync(file, transcript(steps));
        const spans = await expectSameSummary(file);
        if (spans.abridged < spans.full) abridgedRuns++;
      }),
      { numRuns: 300 },
    );
    // the property is about abridged snapshots: most runs must have had some
    expect(abridgedRuns).toBeGreaterThan(150);
  }, 120_000);
});

/**
 * A span as the abridging adapter makes it: with no label but the placeholder's (no caller of
 * abridged snapshots reads one; claudeCodeBlocks.ts block).
 */
const unnamed = (s: Snapshot['spans'][number]): Snapshot['spans'][number] => (s.span_id === SYSTEM_SPAN_ID ? s : { ...s, label: '' });

/** Each call's snapshot from the adapter abridging and from it in full; how many were abridged. */
function expectAbridgedCalls(steps: readonly Step[]): number {
  const records = transcript(steps)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  const take = (a: ClaudeCodeAdapter): Snapshot[] => {
    const out: Snapshot[] = [];
    records.forEach((r, i) =>
      out.push(
        ...a
          .record(r, i + 1)
          .map((m) => m.value)
          .filter((v): v is Snapshot => v.type === 'snapshot'),
      ),
    );
    out.push(
      ...a
        .end()
        .map((m) => m.value)
        .filter((v): v is Snapshot => v.type === 'snapshot'),
    );
    return out;
  };
  const full = take(new ClaudeCodeAdapter('abridged', true, 'all'));
  const abridged = take(new ClaudeCodeAdapter('abridged', true, 'abridged'));
  expect(abridged.length).toBe(full.length);
  let count = 0;
  abridged.forEach((snap, i) => {
    const whole = full[i]!;
    const { spans: _a, ...head } = snap;
    const { spans: _f, ...wholeHead } = whole;
    expect(head).toEqual(wholeHead);
    // every span but the placeholder unnamed, in full snapshots too: labels are not made at all
    for (const s of snap.spans) if (s.span_id !== SYSTEM_SPAN_ID) expect(s.label).toBe('');
    if (snap.spans.length === whole.spans.length) return expect(snap.spans).toEqual(whole.spans.map(unnamed));
    count++;
    const tokens = (spans: Snapshot['spans']): number => spans.reduce((n, s) => n + (s.tokens ?? 0), 0);
    expect(tokens(snap.spans)).toBe(tokens(whole.spans));
    expect(snap.spans.slice(1)).toEqual(whole.spans.filter((s) => s.derived_from !== undefined).map(unnamed));
  });
  return count;
}

describe('the adapter, call by call', () => {
  it("an abridged snapshot holds the placeholder and the full snapshot's derived spans as they are but unnamed, and the same total", () => {
    let abridgedCalls = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 80 }), (steps) => {
        abridgedCalls += expectAbridgedCalls(steps);
      }),
      { numRuns: 300 },
    );
    expect(abridgedCalls).toBeGreaterThan(150);
  });

  it('a tool result cleared while a summary lives: the next abridged call fits the summary with the new estimates', () => {
    const call = (usage: 'small' | 'whole', tools = 0): Step => ({ op: 'call', usage, byRequest: true, again: false, tools, text: 'working' });
    const steps: Step[] = [
      { op: 'prompt', text: 'fix the parser', back: null },
      call('whole', 1),
      { op: 'results', error: false, text: 'x'.repeat(400) },
      call('whole'),
      { op: 'boundary', keep: [] },
      { op: 'summary', text: 'x'.repeat(400) },
      call('small', 1),
      { op: 'results', error: false, text: 'x'.repeat(400) },
      call('small'),
      // toolu_2: the result read after the compaction, cleared
      { op: 'microcompact', tools: [2] },
      call('small'),
      call('small'),
    ];
    expect(expectAbridgedCalls(steps)).toBeGreaterThanOrEqual(2);
  });
});
