// The usage of an answer read as it streams (src/ingest/adapters/proxy/usage.ts): the same
// figure however the bytes are cut into chunks, the final counts of a message_delta winning,
// and nothing taken from a body that is not JSON.
import { describe, expect, it } from 'vitest';
import { UsageReader } from '../../src/ingest/adapters/proxy/usage.ts';
import { anthropicStream, chatStream, responsesStream } from './stubUpstream.ts';

function readIn(api: 'anthropic' | 'openai-chat' | 'openai-responses', text: string, cut: number): number | null {
  const r = new UsageReader(api, true, 1 << 20);
  for (let i = 0; i < text.length; i += cut) r.push(text.slice(i, i + cut));
  return r.end().inputTokens;
}

describe('UsageReader', () => {
  it('reads the same usage whatever the chunking', () => {
    const anthropic = anthropicStream({ text: 'some answer text' }).chunks.join('');
    const chat = chatStream({ text: 'answer', promptTokens: 77 }).chunks.join('');
    const responses = responsesStream({ text: 'answer', inputTokens: 99 }).chunks.join('');
    for (const cut of [1, 2, 7, 64, 100_000]) {
      expect(readIn('anthropic', anthropic, cut)).toBe(1200 + 300 + 5000);
      expect(readIn('openai-chat', chat, cut)).toBe(77);
      expect(readIn('openai-responses', responses, cut)).toBe(99);
    }
  });

  it("takes a message_delta's final counts (newer API versions send them) over message_start's", () => {
    const text =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"cache_read_input_tokens":0,"output_tokens":1}}}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":10,"cache_read_input_tokens":500,"output_tokens":30}}\n\n';
    expect(readIn('anthropic', text, 5)).toBe(510);
  });

  it('has no usage for an answer without one, or a body that is not JSON', () => {
    expect(readIn('openai-chat', chatStream({ text: 'x', promptTokens: null }).chunks.join(''), 3)).toBeNull();
    const r = new UsageReader('anthropic', false, 1 << 20);
    r.push('<html>502 Bad Gateway</html>');
    expect(r.end().inputTokens).toBeNull();
  });

  it('stops holding text past its limit', () => {
    const r = new UsageReader('anthropic', true, 100);
    r.push('data: ' + 'x'.repeat(500));
    expect(r.overLimit).toBe(true);
    expect(r.end().inputTokens).toBeNull();
  });
});
