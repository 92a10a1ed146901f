// Issue 21: a session's name in the overview, so that rows can be told apart. Its title
// (project folder and first prompt for an imported agent, the harness's own for a native
// one), cut at a word to what the name column holds, else its id; and under it the start of
// its id, as long as it takes to tell apart the rows whose shown names are alike.
import { firstWords } from '../../../src/core/shortText.ts';

/** Characters of a title the name column shows on one line at 1024 px. */
export const NAME_CHARS = 24;
/** The id's start shown under every name; longer where two rows still read alike. */
export const ID_START = 8;

export interface SessionName {
  /** what the row shows first: the shortened title, or the id */
  name: string;
  /** the id's start that tells this row from the others reading alike; null when the name is the id */
  idStart: string | null;
}

export function shortTitle(title: string, max = NAME_CHARS): string {
  return firstWords(title, max);
}

export function sessionNames(rows: readonly { session_id: string; title: string | null }[]): Map<string, SessionName> {
  const byName = new Map<string, string[]>();
  const names = new Map<string, string>();
  for (const r of rows) {
    const name = r.title === null || r.title.trim() === '' ? shortTitle(r.session_id) : shortTitle(r.title);
    names.set(r.session_id, name);
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [r.session_id]);
    else list.push(r.session_id);
  }
  const out = new Map<string, SessionName>();
  for (const [name, ids] of byName) {
    const len = distinguishingLength(ids);
    for (const id of ids) {
      const titled = rows.find((r) => r.session_id === id)?.title;
      const nameIsId = titled === null || titled === undefined || titled.trim() === '';
      out.set(id, { name, idStart: nameIsId && ids.length === 1 ? null : startOf(id, len) });
    }
  }
  return out;
}

/** The shortest start (at least ID_START characters) at which the ids all differ. */
function distinguishingLength(ids: readonly string[]): number {
  let len = ID_START;
  const longest = ids.reduce((m, id) => Math.max(m, id.length), -Infinity);
  while (len < longest && new Set(ids.map((id) => id.slice(0, len))).size < ids.length) len++;
  return len;
}

function startOf(id: string, len: number): string {
  return id.length <= len ? id : `${id.slice(0, len)}…`;
}
