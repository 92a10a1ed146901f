// An agent instrumented with the official OpenTelemetry JS SDK, exporting over OTLP/HTTP to
// the relay: no Context Health client at all, only the exporter's endpoint points at it.
//
//   npm start                                   # or: node bin/context-health.mjs serve
//   node --import tsx examples/otel-ts.ts --calls 8 --protocol protobuf
//
// then open the URL `serve` printed: the conversation is a session (its model calls are
// the turns) and its retrievals a second one, `<conversation>/retrieval`. Options: --url
// (default http://127.0.0.1:8787), --conversation, --calls, --protocol json|protobuf,
// --collapse (the retriever's scores narrow and the pinned document sinks: contract §4.16),
// --token (or env CONTEXT_HEALTH_TOKEN). The tests run this file's runOtelAgent
// (test/relay/otlp.test.ts). Spans follow the GenAI semantic conventions for the model
// calls and OpenInference for the retriever (docs/adapters.md "OpenTelemetry").
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface AgentOptions {
  /** the relay, e.g. http://127.0.0.1:8787 */
  url: string;
  protocol: 'json' | 'protobuf';
  conversation: string;
  calls: number;
  /** the retriever's scores narrow and the pinned document falls below the median */
  collapse?: boolean;
  token?: string;
}

export interface RetrievedDoc {
  id: string;
  content: string;
  score: number;
  pinned: boolean;
}

const SYSTEM = 'You are a careful coding agent. Never touch the production database.';
const TASK = 'Fix the flaky payment test in billing/test_charge.py without changing the public API.';

/** The documents the toy retriever returns at call `i` (1-based): ten, one pinned (the runbook). */
export function retrievedDocs(i: number, collapse: boolean): RetrievedDoc[] {
  const docs: RetrievedDoc[] = [];
  for (let d = 0; d < 10; d++) {
    // healthy: a wide spread; collapsed: every score within ±0.02 of 0.5, the pinned one lowest
    const healthy = Math.round((0.95 - d * 0.09 + (i % 3) * 0.001) * 1000) / 1000;
    const narrow = Math.round((0.5 + ((d * 7 + i) % 5) * 0.01 - 0.02) * 1000) / 1000;
    docs.push({
      id: d === 0 ? 'runbook' : `doc${i}-${d}`,
      content: d === 0 ? 'Runbook: payment tests must use the sandbox merchant account.' : `Snippet ${d} of search ${i}: billing code and test notes.`,
      score: collapse ? (d === 0 ? 0.47 : narrow) : healthy,
      pinned: d === 0,
    });
  }
  return docs;
}

/** The messages of model call `i`: the system prompt, the task, then the history; from call 5 a summary replaces calls 1–3's turns. */
export function inputMessages(i: number): { role: string; parts: Record<string, unknown>[]; summary?: boolean }[] {
  const history: { role: string; parts: Record<string, unknown>[]; summary?: boolean }[] = [];
  for (let k = 1; k < i; k++) {
    history.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `call${k}`, name: 'run_tests', arguments: { path: 'billing', attempt: k } }] });
    history.push({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: `call${k}`, response: `attempt ${k}: 1 failed, 41 passed (test_charge timing out)` }],
    });
  }
  if (i >= 5) {
    // the agent compacts: the first three attempts become one summary (marked, so it cites them)
    history.splice(0, 6, { role: 'user', summary: true, parts: [{ type: 'text', content: 'Summary: attempts 1-3 all failed on test_charge timing out.' }] });
  }
  return [{ role: 'user', parts: [{ type: 'text', content: TASK }] }, ...history];
}

/** One retrieval then one model call per step, each a span of the conversation. */
function agentStep(tracer: Tracer, options: AgentOptions, i: number): void {
  const { conversation } = options;
  tracer.startActiveSpan('retrieve', (span) => {
    span.setAttribute('openinference.span.kind', 'RETRIEVER');
    span.setAttribute('session.id', conversation);
    span.setAttribute('input.value', TASK);
    retrievedDocs(i, options.collapse ?? false).forEach((d, n) => {
      span.setAttribute(`retrieval.documents.${n}.document.id`, d.id);
      span.setAttribute(`retrieval.documents.${n}.document.content`, d.content);
      span.setAttribute(`retrieval.documents.${n}.document.score`, d.score);
      if (d.pinned) span.setAttribute(`retrieval.documents.${n}.document.metadata`, JSON.stringify({ pinned: true }));
    });
    span.end();
  });
  tracer.startActiveSpan('chat example-model', (span) => {
    span.setAttribute('gen_ai.operation.name', 'chat');
    span.setAttribute('gen_ai.provider.name', 'example');
    span.setAttribute('gen_ai.request.model', 'example-model');
    span.setAttribute('gen_ai.conversation.id', conversation);
    span.setAttribute('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: SYSTEM }]));
    span.setAttribute('gen_ai.input.messages', JSON.stringify(inputMessages(i)));
    span.setAttribute('gen_ai.usage.input_tokens', 900 + 120 * i);
    span.setAttribute('gen_ai.usage.output_tokens', 60);
    span.end();
  });
}

/** Runs the toy agent for `calls` steps and flushes every span to the relay. */
export async function runOtelAgent(options: AgentOptions): Promise<void> {
  const url = new URL('v1/traces', options.url.endsWith('/') ? options.url : `${options.url}/`).href;
  const headers: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  const exporter = options.protocol === 'protobuf' ? new ProtobufExporter({ url, headers }) : new JsonExporter({ url, headers });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otel-ts-example' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 100, maxExportBatchSize: 64 })],
  });
  const tracer = provider.getTracer('context-health-example');
  for (let i = 1; i <= options.calls; i++) {
    agentStep(tracer, options, i);
    // distinct start times: turns are ordered by them
    await new Promise((r) => setTimeout(r, 2));
  }
  await provider.forceFlush();
  await provider.shutdown();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8787' },
      conversation: { type: 'string', default: `otel-example-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}` },
      calls: { type: 'string', default: '8' },
      protocol: { type: 'string', default: 'protobuf' },
      collapse: { type: 'boolean', default: false },
      token: { type: 'string' },
    },
  });
  const token = values.token ?? process.env.CONTEXT_HEALTH_TOKEN;
  await runOtelAgent({
    url: values.url,
    protocol: values.protocol === 'json' ? 'json' : 'protobuf',
    conversation: values.conversation,
    calls: Number(values.calls),
    collapse: values.collapse,
    ...(token === undefined || token === '' ? {} : { token }),
  });
  console.log(`sent ${values.calls} model calls of conversation ${values.conversation} to ${values.url}`);
}
