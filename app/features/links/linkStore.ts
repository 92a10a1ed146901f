// What a link asked for that is not on screen yet: a dropped file it names (the link cannot
// carry the file), and the check of the file dropped on it. Also how the next URL write
// goes into the history (docs/dashboard.md "Links"). No imports of the app's bridges, so
// any part of the page may mark a change as continuous without an import cycle.
import { create } from 'zustand';
import type { ViewLink } from '../../viewUrl.ts';

export interface FileCheck {
  /** checking: the file is read and its sha256 taken; mismatch: it is another file */
  state: 'checking' | 'mismatch';
  name: string;
  sha256: string | null;
}

export interface LinkState {
  /** a link naming a dropped file that is not on screen: its view waits for that file */
  expected: (ViewLink & { source: { kind: 'file' } }) | null;
  /** the file dropped while a link expected one */
  check: FileCheck | null;
  /** the parts of the last link opened that were malformed and left out */
  problems: string[];
}

export const useLinks = create<LinkState>()(() => ({ expected: null, check: null, problems: [] }));

let continuous = false;

/**
 * The change about to be made is one step of a continuous one (an arrow-key step, a zoom edge
 * slider): it replaces the current history entry instead of adding one.
 */
export function markContinuous(): void {
  continuous = true;
}

/** Read once per URL write: whether the changes since the last write were continuous. */
export function takeContinuous(): boolean {
  const was = continuous;
  continuous = false;
  return was;
}
