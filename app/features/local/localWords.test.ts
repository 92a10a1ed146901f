import { describe, expect, it } from 'vitest';
import { agentName, ago, fillWords, sizeWords } from './localWords.ts';

describe('the words of a local-session row', () => {
  it('says how long ago, from seconds to the date', () => {
    const now = Date.UTC(2026, 11, 3, 12, 0, 0);
    expect(ago(now - 20_000, now)).toBe('just now');
    expect(ago(now - 4 * 60_000, now)).toBe('4 min ago');
    expect(ago(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(ago(now - 30 * 3_600_000, now)).toBe('1 day ago');
    expect(ago(now - 3 * 86_400_000, now)).toBe('3 days ago');
    expect(ago(Date.UTC(2025, 10, 2), now)).toBe('2 Nov 2025');
  });

  it('says the size, the fill and the agent', () => {
    expect([sizeWords(900), sizeWords(21_711), sizeWords(5 * 1024 ** 2), sizeWords(1024 ** 3)]).toEqual(['900 B', '21 KB', '5.0 MB', '1.0 GB']);
    expect(fillWords(0.834)).toBe('peak 83% of the window');
    expect(fillWords(null)).toBe('window size unknown');
    expect(agentName('gemini-cli')).toBe('Gemini CLI');
  });
});
