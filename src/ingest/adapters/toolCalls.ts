// A chat message's tool calls as the model sent them (OpenAI's shapes): chat completions'
// `tool_calls` (`function.name`, `function.arguments`), or a Responses API object's
// `function_call` output items. The SWE-agent and mini-swe-agent adapters both put each call
// in its message's span text as the tool's name and its arguments (docs/adapters.md).
import { exceedsNesting } from '../../core/nesting.ts';
import { isObject, type JsonObject } from './json.ts';

export interface ToolCall {
  id: string | null;
  name: string;
  /** the arguments as the API carries them: a JSON string */
  args: string;
}

export function toolCalls(m: JsonObject): ToolCall[] {
  const out: ToolCall[] = [];
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls) {
      if (!isObject(c)) continue;
      const fn = isObject(c.function) ? c.function : c;
      out.push({ id: typeof c.id === 'string' ? c.id : null, name: typeof fn.name === 'string' ? fn.name : 'tool call', args: argsText(fn.arguments) });
    }
  }
  if (m.object === 'response' && Array.isArray(m.output)) {
    for (const item of m.output) {
      if (!isObject(item) || item.type !== 'function_call') continue;
      const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : null;
      out.push({ id, name: typeof item.name === 'string' ? item.name : 'tool call', args: argsText(item.arguments) });
    }
  }
  return out;
}

/** A call in span text: the tool's name, then its arguments when it has any. */
export function callText(c: ToolCall): string {
  return c.args === '' ? c.name : `${c.name} ${c.args}`;
}

function argsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  // the adapters read fixed, shallow fields (docs/security.md "Importers"): a deep value is not walked
  return exceedsNesting(v, 1) ? '[arguments nested too deep]' : JSON.stringify(v);
}
