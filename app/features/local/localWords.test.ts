import { describe, expect, it } from 'vitest';
import { agentName, ago, fillWords, projectWords, sizeWords } from './localWords.ts';

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

  it('shows a folder as it is, and a Gemini CLI project hash no folder was found for by its first 8 digits', () => {
    expect(projectWords('/work/shop')).toEqual({ text: '/work/shop', title: undefined });
    const hash = '86bc0e27f2bad5ee2e2625969dc74484f7717cff50ea68e3c3f18194c802a493';
    expect(projectWords(hash)).toEqual({ text: 'project 86bc0e27…', title: `Gemini CLI names only a hash of the project folder: ${hash}` });
    // a folder that happens to be 64 hex digits long with a slash is a folder
    expect(projectWords(`/${hash}`).text).toBe(`/${hash}`);
  });

  it('says the size, the fill and the agent', () => {
    expect([sizeWords(900), sizeWords(21_711), sizeWords(5 * 1024 ** 2), sizeWords(1024 ** 3)]).toEqual(['900 B', '21 KB', '5.0 MB', '1.0 GB']);
    expect(fillWords(0.834)).toBe('peak 83% of the window');
    expect(fillWords(null)).toBe('window size unknown');
    expect(agentName('gemini-cli')).toBe('Gemini CLI');
  });
});
