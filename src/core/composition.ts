// contract §8.7 what fills the context: each turn's tokens by kind of span, summing exactly to
// `tokens_total`, and the context window the fill is read against. Pure: the kinds come from
// the spans' `role`, `kind` and `tool` (the adapters write them; a harness may too).

/** contract §8.7: the kind of a span, as `tokens_by_kind` keys it. */
export function compositionKind(role: string | undefined, kind: unknown, tool: unknown): string {
  if (role === 'system') return 'system';
  if (role === 'summary') return 'summary';
  if (role === 'meta') return 'meta';
  if (kind === 'thinking' || kind === 'reasoning') return 'thinking';
  if (kind === 'tool_use') return 'tool_use';
  if (kind === 'tool_result' || role === 'tool') return typeof tool === 'string' && tool !== '' ? `tool_result:${tool}` : 'tool_result';
  if (role === 'user') return 'user';
  if (role === 'assistant') return 'assistant';
  return typeof role === 'string' && role !== '' ? role : 'other';
}

/** Where a session's context window came from (contract §8.7), in the order they are tried. */
export type WindowSource = 'model' | 'header' | 'option';

export interface ContextWindow {
  tokens: number;
  source: WindowSource;
  /** the model id the table matched, when source is model */
  model?: string;
}

/**
 * contract §8.7 the documented table: model ids these agents name → window in tokens.
 * Anthropic's models take 200,000 tokens; their 1M-token variants cannot be told from the id
 * the API reports, except where it says `[1m]`, so a call past 200,000 tokens (which only a
 * 1M variant accepts) moves the session to 1,000,000.
 */
const MODEL_WINDOWS: readonly { match: RegExp; tokens: number }[] = [
  { match: /\[1m\]$|-1m$/i, tokens: 1_000_000 },
  { match: /^(anthropic[./])?claude-/i, tokens: 200_000 },
  // gemini-cli packages/core/src/core/tokenLimits.ts: Gemma 4 takes 256,000; every Gemini model 1,048,576
  { match: /^(models\/)?gemma-4/i, tokens: 256_000 },
  { match: /^(models\/)?gemini-/i, tokens: 1_048_576 },
];

/** The Anthropic 1M-token variant's window, which a call past 200,000 tokens shows is in use. */
export const MILLION = 1_000_000;

export function modelWindow(model: string): number | null {
  for (const m of MODEL_WINDOWS) if (m.match.test(model)) return m.tokens;
  return null;
}
