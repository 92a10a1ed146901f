// Wording shared by every door that reads messages (engine, relay), so the CLI, the
// dashboard and a harness talking to the relay see the same sentence for the same line.

export function notJsonMessage(text: string, e: unknown): string {
  if (/(?:^|[^"\w])(?:-?Infinity|NaN)(?:[^"\w]|$)/.test(text)) {
    return 'not valid JSON: NaN and Infinity are not JSON numbers (send null for an absent score)';
  }
  const detail = e instanceof Error ? e.message : String(e);
  return `not valid JSON: ${detail.length > 160 ? detail.slice(0, 160) + '…' : detail}`;
}

/** The message's session_id when it names one, for an error's context. */
export function sessionIdOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const sid = (value as { session_id?: unknown }).session_id;
  return typeof sid === 'string' && sid.length > 0 ? sid : undefined;
}
