// Issue 26, risky: an OTLP conversation id "a/retrieval" wrote into conversation "a"'s
// retrieval session. A conversation's own session id can no longer hold a bare "/".
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { OtlpAdapter } from '../../src/ingest/adapters/otlp/adapter.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const attrs = (list: [string, string | number][]): unknown[] =>
  list.map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { doubleValue: v } }));
let n = 1;
const span = (ms: number, list: [string, string | number][]): unknown => {
  const ns = (BigInt(Date.UTC(2026, 0, 1)) + BigInt(ms)) * 1_000_000n;
  return {
    traceId: 'ab'.repeat(16),
    spanId: (n++).toString(16).padStart(16, '0'),
    name: 's',
    kind: 3,
    startTimeUnixNano: String(ns),
    endTimeUnixNano: String(ns + 1000n),
    attributes: attrs(list),
  };
};

it("conversation 'a/retrieval' and conversation 'a''s retrievals are two sessions", () => {
  const adapter = new OtlpAdapter({ sha256, reorderMs: 0 });
  const messages = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }]);
  adapter.receive(
    {
      resourceSpans: [
        {
          resource: { attributes: attrs([['service.name', 'agent']]) },
          scopeSpans: [
            {
              scope: { name: 't' },
              spans: [
                span(0, [
                  ['openinference.span.kind', 'RETRIEVER'],
                  ['session.id', 'a'],
                  ['retrieval.documents.0.document.id', 'd'],
                  ['retrieval.documents.0.document.content', 'doc'],
                  ['retrieval.documents.0.document.score', 0.5],
                ]),
                span(5, [
                  ['gen_ai.operation.name', 'chat'],
                  ['gen_ai.conversation.id', 'a/retrieval'],
                  ['gen_ai.input.messages', messages],
                ]),
              ],
            },
          ],
        },
      ],
    },
    0,
  );
  const sessions = new Set(adapter.due(0).map((m) => (m.value as { session_id: string }).session_id));
  expect(sessions).toEqual(new Set(['a/retrieval', 'a%2Fretrieval']));
});

it("a retrieved document whose id reads as another's repeat (x~2) does not share its span id (docs/adapters.md 'Retrievals')", () => {
  const adapter = new OtlpAdapter({ sha256, reorderMs: 0 });
  // doc-x, doc-x~2 for x again, and an id `x~2` (doc-x~2 as well before); then the same ids in the other order
  const docs = (ids: string[]): [string, string | number][] =>
    ids.flatMap((id, i): [string, string | number][] => [
      [`retrieval.documents.${i}.document.id`, id],
      [`retrieval.documents.${i}.document.content`, `content ${i}`],
      [`retrieval.documents.${i}.document.score`, 0.5],
    ]);
  const spans = [
    span(0, [['openinference.span.kind', 'RETRIEVER'], ['session.id', 'a'], ...docs(['x', 'x', 'x~2'])]),
    span(5, [['openinference.span.kind', 'RETRIEVER'], ['session.id', 'a'], ...docs(['x~2', 'x', 'x'])]),
  ];
  adapter.receive({ resourceSpans: [{ resource: { attributes: attrs([['service.name', 'agent']]) }, scopeSpans: [{ scope: { name: 't' }, spans }] }] }, 0);
  const turns = adapter
    .due(0)
    .map((m) => m.value as { type: string; spans?: { span_id: string }[] })
    .filter((v) => v.type === 'snapshot');
  expect(turns.map((t) => t.spans!.map((s) => s.span_id))).toEqual([
    ['doc-x', 'doc-x~2', 'doc-x~2~2'],
    ['doc-x~2', 'doc-x', 'doc-x~3'],
  ]);
});
