// The relay's session list (server data: TanStack Query, never copied into a store).
import { useQuery } from '@tanstack/react-query';
import type { RelaySession, RelaySessionList } from '../../src/protocol/relay.ts';

export async function fetchSessions(signal?: AbortSignal): Promise<RelaySession[]> {
  const res = await fetch('/api/sessions', { signal, headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`the relay answered HTTP ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('json')) throw new Error('no relay here (this page is not served by context-health serve)');
  const body = (await res.json()) as Partial<RelaySessionList>;
  return body.sessions ?? [];
}

export function useRelaySessions() {
  return useQuery({
    queryKey: ['relay', 'sessions'],
    queryFn: ({ signal }) => fetchSessions(signal),
    refetchInterval: (q) => (q.state.status === 'error' ? 15_000 : 3_000),
  });
}
