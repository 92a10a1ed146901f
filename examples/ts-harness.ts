// A toy self-editing agent loop streaming one snapshot per turn to a running relay, and
// acting on the verdict the relay sends back in each ack (contract §5, §7): it freezes
// pruning on `freeze`, scores the listed spans again on `recompute`, and removes the
// listed spans on `drop`.
//
//   npm start                                   # or: node bin/context-health.mjs serve
//   node --import tsx examples/ts-harness.ts --turns 60 --interval-ms 500 --faults
//
// then open the URL `serve` printed and pick the session. Options: --url (default
// http://127.0.0.1:8787), --session, --turns, --interval-ms, --token (or env
// CONTEXT_HEALTH_TOKEN), --faults (every 30 turns: a rewrite that keeps its old score,
// a span paraphrased until it is poisoned, and a scorer that collapses for a while; the
// dashboard shows each fault and the turn after it, once the loop obeyed the verdict).
// In your own harness, import from src/client/harness.ts.
import { parseArgs } from 'node:util';
import { HarnessClient, HarnessSession, scored } from '../src/client/harness.ts';
import type { AckVerdict } from '../src/protocol/relay.ts';
import type { Span } from '../src/core/wire.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8787' },
    session: { type: 'string', default: `ts-example-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}` },
    turns: { type: 'string', default: '30' },
    'interval-ms': { type: 'string', default: '500' },
    token: { type: 'string' },
    faults: { type: 'boolean', default: false },
  },
});

/** Stand-in for the model call that scores a span against the current goal. */
function relevance(text: string, turn: number): number {
  let h = turn;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return Math.round((0.2 + 0.8 * ((h % 1000) / 1000)) * 1000) / 1000;
}

/** With --faults, the scorer collapses on turns 18–25 of every 30: every span near 0.5, the pinned goal just below. */
function collapsed(turn: number): boolean {
  return values.faults && turn % 30 >= 18 && turn % 30 <= 25;
}

function score(span: Span, turn: number): number {
  if (!collapsed(turn)) return span.pinned === true ? 0.95 : relevance(span.text, turn);
  return span.pinned === true ? 0.45 : 0.5 + (relevance(span.text, turn) - 0.6) / 50;
}

const client = new HarnessClient({
  url: values.url,
  ...(values.token === undefined ? {} : { token: values.token }),
  onStatus: (status, detail) => console.error(`relay ${status}: ${detail}`),
});
const run = new HarnessSession(client, values.session);
await run.start({ title: 'TypeScript example: a toy self-editing agent that obeys the verdict' });

const budget = 12;
const goal = 'Goal: keep the answer under 200 words.';
let buffer: Span[] = [
  // a pinned canary: the constraint the agent must never lose (contract §4 collapse detection)
  { span_id: 'goal', text: goal, pinned: true, role: 'system', ...scored(goal, 0.95) },
];
let nextId = 1;
/** the last verdict: what this turn must do before pruning */
let verdict: AckVerdict | null = null;
let frozen = false;
const turns = Number(values.turns);
for (let turn = 1; turn <= turns; turn++) {
  const did: string[] = [];
  // 0. obey the relay's verdict of the previous turn (contract §5)
  if (verdict !== null) {
    if (verdict.drop.length > 0) {
      buffer = buffer.filter((s) => !verdict!.drop.includes(s.span_id));
      did.push(`dropped ${verdict.drop.join(', ')}`);
    }
    if (verdict.action === 'recompute') {
      for (const s of buffer) if (verdict.recompute.includes(s.span_id)) Object.assign(s, scored(s.text, score(s, turn)));
      did.push(`rescored ${verdict.recompute.length}`);
    }
    if (verdict.action === 'freeze' && !frozen) did.push('froze pruning');
    if (verdict.action !== 'freeze' && frozen) did.push('pruning again');
    frozen = verdict.action === 'freeze';
  }
  // while collapsed, and when it recovers, the scorer rescores every span
  if (collapsed(turn) || collapsed(turn - 1)) for (const s of buffer) Object.assign(s, scored(s.text, score(s, turn)));

  // 1. the agent observes something new, scored when it is added
  const text = `Observation ${turn}: tool output about step ${turn}.`;
  const observed: Span = { span_id: `m${nextId++}`, text, role: 'tool', rewrite_count: 0, ...scored(text, 0) };
  buffer.push(Object.assign(observed, scored(text, score(observed, turn))));

  // 2. every fifth turn a model call rewrites the oldest unpinned span and its score is
  //    computed again on the new text. With --faults: on turn 7 of 30 the rewrite keeps
  //    the old score (a stale score), and on turns 12–14 one span is paraphrased again
  //    and again (a paraphrase of a paraphrase is poisoned: contract §4.13)
  const modified: string[] = [];
  const stale = values.faults && turn % 30 === 7;
  const paraphrase = values.faults && turn % 30 >= 12 && turn % 30 <= 14;
  if (turn % 5 === 0 || stale || paraphrase) {
    const target = paraphrase ? (buffer.find((s) => s.span_id === 'p') ?? buffer.find((s) => !s.pinned)) : buffer.find((s) => !s.pinned);
    if (target !== undefined) {
      const summary = `Summary of ${target.span_id}: ${target.text.slice(0, 24)}…`;
      if (paraphrase && target.span_id !== 'p') target.span_id = 'p';
      Object.assign(target, { text: summary, rewrite_count: (target.rewrite_count ?? 0) + (paraphrase ? 1 : 0) });
      if (!stale) Object.assign(target, scored(summary, score(target, turn)));
      modified.push(target.span_id);
    }
  }

  // 3. prune the lowest-scored unpinned spans over budget, unless frozen
  const pruned: string[] = [];
  while (!frozen && buffer.length > budget) {
    const victim = buffer.filter((s) => !s.pinned).reduce((a, b) => ((a.score ?? 0) <= (b.score ?? 0) ? a : b));
    pruned.push(victim.span_id);
    buffer = buffer.filter((s) => s !== victim);
  }

  const ack = await run.snapshot({
    spans: buffer,
    rewrite: { spans_modified: modified.length, scores_invalidated: stale ? 0 : modified.length, modified_span_ids: modified },
    pruned,
  });
  verdict = ack.verdict ?? null;
  const heard = verdict === null ? '' : ` · verdict ${verdict.action}${verdict.signals.length > 0 ? ` (${verdict.signals.join(', ')})` : ''}`;
  console.log(
    `turn ${turn}: ${buffer.length} spans, stored as seq ${ack.seq}${ack.duplicate ? ' (already stored)' : ''}${heard}${did.length > 0 ? ` · ${did.join('; ')}` : ''}`,
  );
  if (turn < turns) await new Promise((r) => setTimeout(r, Number(values['interval-ms'])));
}
await client.close();
console.log(`done: session ${JSON.stringify(values.session)} at ${values.url}`);
