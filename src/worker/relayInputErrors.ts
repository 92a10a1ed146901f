// docs/adapters.md "OpenTelemetry" ordering: the relay cannot store a span that arrived too
// late to be placed, so it lists it in the `input_errors` field of the session's next
// snapshot (an extra field: the analysis ignores it, contract §2). A dashboard following the
// session shows those among the session's input errors, where a person looks for what was lost.
import type { InputError } from '../core/engine.ts';

/** The input errors a relay attached to a stored message, as the Worker lists them (line = the frame's seq). */
export function relayInputErrors(data: unknown, seq: number): InputError[] {
  if (typeof data !== 'object' || data === null) return [];
  const m = data as { session_id?: unknown; input_errors?: unknown; input_errors_not_listed?: unknown };
  if (!Array.isArray(m.input_errors)) return [];
  const session = typeof m.session_id === 'string' ? { session_id: m.session_id } : {};
  const out: InputError[] = [];
  for (const e of m.input_errors) {
    if (typeof e !== 'object' || e === null) continue;
    const { trace_id, span_id, message } = e as { trace_id?: unknown; span_id?: unknown; message?: unknown };
    if (typeof message !== 'string') continue;
    const where = typeof span_id === 'string' ? `OTLP span ${span_id}${typeof trace_id === 'string' ? ` of trace ${trace_id}` : ''}: ` : '';
    out.push({ line: seq, message: `${where}${message}`, ...session });
  }
  const more = m.input_errors_not_listed;
  if (typeof more === 'number' && Number.isInteger(more) && more > 0) {
    out.push({ line: seq, message: `and ${more} more OTLP spans the relay could not place (not listed)`, ...session });
  }
  return out;
}
