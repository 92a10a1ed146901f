"""A toy agent instrumented with the official OpenTelemetry Python SDK, exporting over
OTLP/HTTP (protobuf) to the Context Health relay. Nothing of Context Health is imported:
only the exporter's endpoint points at the relay.

    pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http
    node bin/context-health.mjs serve            # in another terminal
    python examples/otel_python.py --calls 6

Open the URL `serve` printed: the conversation is a session whose turns are the model
calls, and its retrievals a second session, `<conversation>/retrieval`. The spans follow
the GenAI semantic conventions (model calls) and OpenInference (the retriever); the
mapping is docs/adapters.md "OpenTelemetry". Options: --url (default
http://127.0.0.1:8787), --conversation, --calls, --token (or CONTEXT_HEALTH_TOKEN).
Not run by the tests (the TypeScript example, examples/otel-ts.ts, is).
"""

import argparse
import json
import os
import time

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

SYSTEM = "You are a careful coding agent. Never touch the production database."
TASK = "Fix the flaky payment test in billing/test_charge.py without changing the public API."


def input_messages(call: int) -> list:
    """What model call `call` sees: the task, then one tool call and its result per earlier call."""
    messages = [{"role": "user", "parts": [{"type": "text", "content": TASK}]}]
    for k in range(1, call):
        messages.append({"role": "assistant", "parts": [{"type": "tool_call", "id": f"call{k}", "name": "run_tests", "arguments": {"attempt": k}}]})
        messages.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call{k}", "response": f"attempt {k}: 1 failed"}]})
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8787")
    parser.add_argument("--conversation", default=time.strftime("otel-python-%Y%m%d%H%M%S"))
    parser.add_argument("--calls", type=int, default=6)
    parser.add_argument("--token", default=os.environ.get("CONTEXT_HEALTH_TOKEN"))
    args = parser.parse_args()

    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    exporter = OTLPSpanExporter(endpoint=args.url.rstrip("/") + "/v1/traces", headers=headers)
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-python-example"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("context-health-example")

    for call in range(1, args.calls + 1):
        with tracer.start_as_current_span("retrieve") as span:
            span.set_attribute("openinference.span.kind", "RETRIEVER")
            span.set_attribute("session.id", args.conversation)
            for n in range(5):
                span.set_attribute(f"retrieval.documents.{n}.document.id", f"doc{call}-{n}")
                span.set_attribute(f"retrieval.documents.{n}.document.content", f"Snippet {n} of search {call}")
                span.set_attribute(f"retrieval.documents.{n}.document.score", round(0.9 - 0.15 * n, 3))
        with tracer.start_as_current_span("chat example-model") as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.provider.name", "example")
            span.set_attribute("gen_ai.request.model", "example-model")
            span.set_attribute("gen_ai.conversation.id", args.conversation)
            span.set_attribute("gen_ai.system_instructions", json.dumps([{"type": "text", "content": SYSTEM}]))
            span.set_attribute("gen_ai.input.messages", json.dumps(input_messages(call)))
            span.set_attribute("gen_ai.usage.input_tokens", 900 + 120 * call)
        time.sleep(0.01)

    provider.shutdown()  # flushes every span to the relay
    print(f"sent {args.calls} model calls of conversation {args.conversation} to {args.url}")


if __name__ == "__main__":
    main()
