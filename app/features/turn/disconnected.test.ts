import { describe, expect, it } from 'vitest';
import { isDisconnected } from './disconnected.ts';

describe('isDisconnected: when the banner says the verdict is history', () => {
  it('holds through the whole retry cycle, not only while waiting out the backoff', () => {
    expect(isDisconnected({ state: 'reconnecting', attempt: 1, inMs: 250, reason: 'connection closed (code 1006)', lastSeq: 60 })).toBe(true);
    // the retry itself: the CI failure was the banner saying "pruning may proceed" here
    expect(isDisconnected({ state: 'connecting', attempt: 2 })).toBe(true);
    expect(isDisconnected({ state: 'closed', reason: 'the session was deleted on the relay' })).toBe(true);
    expect(isDisconnected({ state: 'failed', reason: 'out of memory' })).toBe(true);
  });

  it('is false while the relay answers', () => {
    expect(isDisconnected(null)).toBe(false);
    expect(isDisconnected({ state: 'live', lastSeq: 60 })).toBe(false);
    expect(isDisconnected({ state: 'catching-up', since: 0, lastSeq: 60, received: 20 })).toBe(false);
  });
});
