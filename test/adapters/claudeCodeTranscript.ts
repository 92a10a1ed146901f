// Builds Claude Code transcripts record by record, in the shape Claude Code writes them
// (docs/adapters.md "Claude Code"), for tests that need a scenario the shared fixture lacks.
type Json = Record<string, unknown>;

export interface Usage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export class TranscriptBuilder {
  readonly records: Json[] = [];
  private n = 0;
  private calls = 0;
  private toolIds = 0;

  constructor(readonly sessionId = 'cc-audit') {}

  private base(type: string, extra: Json = {}): Json {
    this.n++;
    return {
      type,
      uuid: `r${this.n}`,
      parentUuid: this.n === 1 ? null : `r${this.n - 1}`,
      sessionId: this.sessionId,
      isSidechain: false,
      timestamp: `2026-11-30T10:${String(Math.floor(this.n / 60)).padStart(2, '0')}:${String(this.n % 60).padStart(2, '0')}.000Z`,
      ...extra,
    };
  }

  /** the id the next record gets (span ids are `<id>#<block>`) */
  get nextId(): string {
    return `r${this.n + 1}`;
  }

  prompt(content: string | Json[], extra: Json = {}): string {
    const id = this.nextId;
    this.records.push(this.base('user', { message: { role: 'user', content }, ...extra }));
    return id;
  }

  /** one API call with `input` prompt tokens (split over input / cache), its blocks in one record */
  call(input: number, blocks: Json[], extra: Json = {}): string {
    this.calls++;
    const usage: Usage = {
      input_tokens: 3,
      cache_creation_input_tokens: Math.floor((input - 3) / 2),
      cache_read_input_tokens: input - 3 - Math.floor((input - 3) / 2),
      output_tokens: 50,
    };
    const id = this.nextId;
    this.records.push(
      this.base('assistant', { requestId: `req_${this.calls}`, message: { role: 'assistant', model: 'claude-sonnet-4-5', content: blocks, usage }, ...extra }),
    );
    return id;
  }

  tool(name: string, input: Json): Json {
    return { type: 'tool_use', id: `toolu_${++this.toolIds}`, name, input };
  }

  /** the tool results of `uses`, in one user record */
  results(uses: Json[], text = 'ok', isError = false): string {
    const id = this.nextId;
    const content = uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: text, ...(isError ? { is_error: true } : {}) }));
    this.records.push(this.base('user', { message: { role: 'user', content } }));
    return id;
  }

  /** a call that uses tools, then their results */
  toolCall(input: number, uses: Json[], result = 'ok'): void {
    this.call(input, uses);
    this.results(uses, result);
  }

  /** `more`: further compactMetadata fields (2.1.332's preservedMessages, …) */
  boundary(trigger: 'auto' | 'manual', preTokens: number, more: Json = {}): void {
    this.records.push(
      this.base('system', { subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger, preTokens, ...more } }),
    );
  }

  summary(text: string): string {
    const id = this.nextId;
    this.records.push(this.base('user', { isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: text } }));
    return id;
  }

  microcompact(toolIds: string[], preTokens: number): void {
    this.records.push(
      this.base('system', {
        subtype: 'microcompact_boundary',
        microcompactMetadata: { trigger: 'auto', preTokens, tokensSaved: 100, compactedToolIds: toolIds },
      }),
    );
  }

  text(): string {
    return this.records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  }
}
