// The agent sessions the relay found on its machine (GET /api/local, docs/relay.md "Local
// sessions"): server data, fetched after the page's first paint and polled, never copied
// into a store. Polled every second while the relay's first look runs, then every 5 s.
import { useQuery } from '@tanstack/react-query';
import type { LocalSessionList } from '../../src/protocol/localSessions.ts';

export async function fetchLocalSessions(signal?: AbortSignal): Promise<LocalSessionList | null> {
  const res = await fetch('/api/local', { signal, headers: { accept: 'application/json' } });
  // a relay from before local sessions, or no relay: nothing to list
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`the relay answered HTTP ${res.status}`);
  if (!(res.headers.get('content-type') ?? '').includes('json')) return null;
  return (await res.json()) as LocalSessionList;
}

export function useLocalSessions() {
  return useQuery({
    queryKey: ['relay', 'local'],
    queryFn: ({ signal }) => fetchLocalSessions(signal),
    refetchInterval: (q) => (q.state.status === 'error' ? 15_000 : q.state.data?.indexing === true ? 1_000 : 5_000),
  });
}
