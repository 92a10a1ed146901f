// contract §8.8: the labels of the spans the Worker's replies have named so far (span id →
// label), for every place on the page that names a span by id: a chip, a compaction item, a
// finding. Reset with the source; labels never change meaning within one.
import { create } from 'zustand';
import type { SpanLabels } from '../../src/worker/client.ts';

const labels = new Map<string, string>();

/** Bumped when new labels arrive, so what names a span re-renders. */
const useLabelsVersion = create<{ version: number }>(() => ({ version: 0 }));

export function learnLabels(more: SpanLabels | undefined): void {
  if (more === undefined) return;
  let added = false;
  for (const [id, label] of Object.entries(more)) {
    if (labels.get(id) === label) continue;
    labels.set(id, label);
    added = true;
  }
  if (added) useLabelsVersion.setState((s) => ({ version: s.version + 1 }));
}

export function resetSpanLabels(): void {
  labels.clear();
  useLabelsVersion.setState({ version: 0 });
}

/** The label of a span, null when it has none (then the id is its name). */
export function spanLabel(id: string): string | null {
  return labels.get(id) ?? null;
}

export function useSpanLabel(id: string): string | null {
  useLabelsVersion((s) => s.version);
  return spanLabel(id);
}

/** Re-renders the caller when labels arrive (for lists that look many up). */
export function useLabelsRevision(): number {
  return useLabelsVersion((s) => s.version);
}
