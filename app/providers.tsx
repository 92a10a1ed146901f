import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ChartHostContext } from '../src/charts/host.tsx';
import { PAGE_CHART_HOST } from './chartHost.tsx';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ChartHostContext.Provider value={PAGE_CHART_HOST}>{children}</ChartHostContext.Provider>
    </QueryClientProvider>
  );
}
