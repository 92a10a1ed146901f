// The charts a report draws, in the dashboard's order (app/features/charts/Charts.tsx).
import type { ComponentType } from 'react';
import { AgreementChart } from '../charts/AgreementChart.tsx';
import { CanaryChart } from '../charts/CanaryChart.tsx';
import { CompositionChart } from '../charts/CompositionChart.tsx';
import { DriftChart } from '../charts/DriftChart.tsx';
import { OrphansChart } from '../charts/OrphansChart.tsx';
import { SpreadChart } from '../charts/SpreadChart.tsx';
import type { SeriesView } from '../results/series.ts';

export const REPORT_CHARTS: { id: string; Component: ComponentType; when?: (v: SeriesView) => boolean }[] = [
  { id: 'composition', Component: CompositionChart },
  { id: 'spread', Component: SpreadChart },
  { id: 'agreement', Component: AgreementChart, when: (v) => v.spread.agreement !== null },
  { id: 'canary', Component: CanaryChart },
  { id: 'drift', Component: DriftChart },
  { id: 'orphans', Component: OrphansChart },
];
