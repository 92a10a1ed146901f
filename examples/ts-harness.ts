// A toy self-editing agent loop streaming one snapshot per turn to a running relay.
//
//   npm start                                   # or: node bin/context-health.mjs serve
//   node --import tsx examples/ts-harness.ts --turns 30 --interval-ms 500
//
// then open the URL `serve` printed and pick the session. Options: --url (default
// http://127.0.0.1:8787), --session, --turns, --interval-ms, --token (or env
// CONTEXT_HEALTH_TOKEN). In your own harness, import from src/client/harness.ts.
import { parseArgs } from 'node:util';
import { HarnessClient, HarnessSession, scored } from '../src/client/harness.ts';
import type { Span } from '../src/core/wire.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8787' },
    session: { type: 'string', default: `ts-example-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}` },
    turns: { type: 'string', default: '30' },
    'interval-ms': { type: 'string', default: '500' },
    token: { type: 'string' },
  },
});

/** Stand-in for the model call that scores a span against the current goal. */
function relevance(text: string, turn: number): number {
  let h = turn;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return Math.round((0.2 + 0.8 * ((h % 1000) / 1000)) * 1000) / 1000;
}

const client = new HarnessClient({
  url: values.url,
  ...(values.token === undefined ? {} : { token: values.token }),
  onStatus: (status, detail) => console.error(`relay ${status}: ${detail}`),
});
const run = new HarnessSession(client, values.session);
await run.start({ title: 'TypeScript example: a toy self-editing agent' });

const budget = 12;
let buffer: Span[] = [
  // a pinned canary: the constraint the agent must never lose (contract §4 collapse detection)
  { span_id: 'goal', text: 'Goal: keep the answer under 200 words.', pinned: true, role: 'system', ...scored('Goal: keep the answer under 200 words.', 0.95) },
];
let nextId = 1;
const turns = Number(values.turns);
for (let turn = 1; turn <= turns; turn++) {
  // 1. the agent observes something new, scored when it is added
  const text = `Observation ${turn}: tool output about step ${turn}.`;
  buffer.push({ span_id: `m${nextId++}`, text, role: 'tool', ...scored(text, relevance(text, turn)) });

  // 2. every fifth turn a model call rewrites the oldest unpinned span; the rewrite
  //    invalidates its score, and the harness recomputes it on the new text
  const modified: string[] = [];
  if (turn % 5 === 0) {
    const target = buffer.find((s) => !s.pinned);
    if (target !== undefined) {
      const summary = `Summary of ${target.span_id}: ${target.text.slice(0, 24)}…`;
      Object.assign(target, { text: summary, rewrite_count: 0, ...scored(summary, relevance(summary, turn)) });
      modified.push(target.span_id);
    }
  }

  // 3. prune the lowest-scored unpinned spans over budget
  const pruned: string[] = [];
  while (buffer.length > budget) {
    const victim = buffer.filter((s) => !s.pinned).reduce((a, b) => ((a.score ?? 0) <= (b.score ?? 0) ? a : b));
    pruned.push(victim.span_id);
    buffer = buffer.filter((s) => s !== victim);
  }

  const ack = await run.snapshot({
    spans: buffer,
    rewrite: { spans_modified: modified.length, scores_invalidated: modified.length, modified_span_ids: modified, invalidated_span_ids: modified },
    pruned,
  });
  console.log(`turn ${turn}: ${buffer.length} spans, stored as seq ${ack.seq}${ack.duplicate ? ' (already stored)' : ''}`);
  if (turn < turns) await new Promise((r) => setTimeout(r, Number(values['interval-ms'])));
}
await client.close();
console.log(`done: session ${JSON.stringify(values.session)} at ${values.url}`);
