// Messages and span ids of findings, fetched from the Worker only for the rows on screen
// (the list may hold hundreds of thousands). Keyed by source and session; a new source
// starts a new cache.
import { useEffect, useState } from 'react';
import type { FindingDetail } from '../../../src/worker/client.ts';
import { fetchFindingDetails } from '../../analysis.ts';
import { useAnalysis } from '../../stores/analysis.ts';

let key = '';
let cache = new Map<number, FindingDetail>();
const asked = new Set<number>();

function currentKey(): string {
  const s = useAnalysis.getState();
  return `${JSON.stringify(s.source)}|${s.sessionId}|${s.findings === null ? '' : 'x'}`;
}

export function useFindingDetails(indices: readonly number[]): ReadonlyMap<number, FindingDetail> {
  const [, bump] = useState(0);
  const sessionKey = currentKey();
  if (sessionKey !== key) {
    key = sessionKey;
    cache = new Map();
    asked.clear();
  }
  const missing = indices.filter((i) => !cache.has(i) && !asked.has(i));
  const missingKey = missing.join(',');
  useEffect(() => {
    if (missingKey === '') return;
    const want = missingKey.split(',').map(Number);
    for (const i of want) asked.add(i);
    const forKey = key;
    let alive = true;
    fetchFindingDetails(want)
      .then((details) => {
        if (forKey !== key) return;
        for (const d of details) cache.set(d.index, d);
        if (alive) bump((n) => n + 1);
      })
      .catch(() => {
        for (const i of want) asked.delete(i);
      });
    return () => {
      alive = false;
    };
  }, [missingKey]);
  return cache;
}
