// Messages and span ids of findings, fetched from the Worker only for the rows on screen
// (the list may hold hundreds of thousands). Finding indices are stable for one source
// and session, so the cache lives until the bridge resets it for a new one.
import { useEffect } from 'react';
import { create } from 'zustand';
import type { FindingDetail } from '../../../src/worker/client.ts';
import { analysisClient } from '../../analysisClient.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { learnLabels } from '../../stores/spanLabels.ts';

const details = new Map<number, FindingDetail>();
const asked = new Set<number>();
let generation = 0;

/** Bumped when details arrive, so the list re-renders. */
const useDetailsVersion = create<{ version: number }>(() => ({ version: 0 }));

export function resetFindingDetails(): void {
  generation++;
  details.clear();
  asked.clear();
  useDetailsVersion.setState({ version: 0 });
}

function fetchFindingDetails(indices: number[]): Promise<FindingDetail[]> {
  const { sessionId } = useAnalysis.getState();
  if (sessionId === null) return Promise.resolve([]);
  return analysisClient().query('findingDetails', { sessionId, indices });
}

function request(indices: readonly number[]): void {
  const want = indices.filter((i) => !details.has(i) && !asked.has(i));
  if (want.length === 0) return;
  for (const i of want) asked.add(i);
  const gen = generation;
  fetchFindingDetails(want)
    .then((got) => {
      if (gen !== generation) return;
      for (const d of got) {
        details.set(d.index, d);
        learnLabels(d.labels);
      }
      useDetailsVersion.setState((s) => ({ version: s.version + 1 }));
    })
    .catch(() => {
      if (gen === generation) for (const i of want) asked.delete(i);
    });
}

export function useFindingDetails(indices: readonly number[]): ReadonlyMap<number, FindingDetail> {
  useDetailsVersion((s) => s.version);
  const key = indices.join(',');
  useEffect(() => {
    if (key !== '') request(key.split(',').map(Number));
  }, [key]);
  return details;
}
