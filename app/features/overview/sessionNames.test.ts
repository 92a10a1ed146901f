import { describe, expect, it } from 'vitest';
import { NAME_CHARS, sessionNames, shortTitle } from './sessionNames.ts';

describe('session names in the overview', () => {
  it('shortens a title at a word to what the column holds', () => {
    const t = shortTitle('wt21ui — Make the cache in src/cache.ts evict by size, not by count');
    expect(t.length).toBeLessThanOrEqual(NAME_CHARS);
    expect(t.endsWith('…')).toBe(true);
  });

  it('never lets two rows read alike: the id start grows until the ids differ', () => {
    const rows = [
      { session_id: '01ae8323-3017-40c5-a344-05b54fc9e216', title: 'repo — Make the cache in src/cache.ts evict by size please' },
      { session_id: '01ae8323-9999-40c5-a344-05b54fc9e216', title: 'repo — Make the cache in src/cache.ts evict by size now' },
      { session_id: 'native-1', title: null },
    ];
    const names = sessionNames(rows);
    const shown = rows.map((r) => `${names.get(r.session_id)!.name} ${names.get(r.session_id)!.idStart ?? ''}`);
    expect(new Set(shown).size).toBe(rows.length);
    expect(names.get(rows[0]!.session_id)!.idStart).toBe('01ae8323-3…');
    expect(names.get(rows[1]!.session_id)!.idStart).toBe('01ae8323-9…');
    // a session named by its id shows it once
    expect(names.get('native-1')).toEqual({ name: 'native-1', idStart: null });
  });
});
