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
 * 1M variant accepts) moves the session to 1,000,000 (`oneMillionVariant`).
 *
 * OpenAI's models are the input windows codex-rs's model table gives (gpt-5 takes 400,000 in
 * all, 128,000 of them reserved for output, so 272,000 of context). They are `fallback`: a
 * header's `context_window` (the Codex rollout's own figure, which allows for what Codex
 * keeps back) wins over them, so a Codex session keeps the window its agent stated.
 */
interface WindowEntry {
  match: RegExp;
  tokens: number;
  oneMillionVariant?: true;
  fallback?: true;
}

const MODEL_WINDOWS: readonly WindowEntry[] = [
  { match: /\[1m\]$|-1m$/i, tokens: 1_000_000 },
  { match: /^(anthropic[./])?claude-/i, tokens: 200_000, oneMillionVariant: true },
  // gemini-cli packages/core/src/core/tokenLimits.ts: Gemma 4 takes 256,000; every Gemini model 1,048,576
  { match: /^(models\/)?gemma-4/i, tokens: 256_000 },
  { match: /^(models\/)?gemini-/i, tokens: 1_048_576 },
  // OpenAI (an optional `openai/` prefix, as LiteLLM-style routers write it)
  { match: /^(openai\/)?gpt-oss-/i, tokens: 96_000, fallback: true },
  { match: /^(openai\/)?(gpt-5|codex-)/i, tokens: 272_000, fallback: true },
  { match: /^(openai\/)?gpt-4\.1/i, tokens: 1_047_576, fallback: true },
  { match: /^(openai\/)?(gpt-4o|chatgpt-4o)/i, tokens: 128_000, fallback: true },
  { match: /^(openai\/)?(o1|o3|o4-mini)(-|$)/i, tokens: 200_000, fallback: true },
  { match: /^(openai\/)?gpt-3\.5-turbo/i, tokens: 16_385, fallback: true },
];

/** The Anthropic 1M-token variant's window, which a call past 200,000 tokens shows is in use. */
export const MILLION = 1_000_000;

export interface ModelWindow {
  tokens: number;
  /** a call past `tokens` shows the 1M-token variant is in use (Anthropic's models only) */
  oneMillionVariant: boolean;
  /** the header's `context_window`, when there is one, is the better figure */
  fallback: boolean;
}

export function modelWindow(model: string): ModelWindow | null {
  for (const m of MODEL_WINDOWS)
    if (m.match.test(model)) return { tokens: m.tokens, oneMillionVariant: m.oneMillionVariant === true, fallback: m.fallback === true };
  return null;
}
