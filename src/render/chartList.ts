// The charts a report draws, in the dashboard's order (app/features/charts/Charts.tsx).
import type { ComponentType } from 'react';
import { AgreementChart } from '../../app/features/charts/AgreementChart.tsx';
import { CanaryChart } from '../../app/features/charts/CanaryChart.tsx';
import { CompositionChart } from '../../app/features/charts/CompositionChart.tsx';
import { DriftChart } from '../../app/features/charts/DriftChart.tsx';
import { OrphansChart } from '../../app/features/charts/OrphansChart.tsx';
import { SpreadChart } from '../../app/features/charts/SpreadChart.tsx';
import type { SeriesView } from '../results/series.ts';

export const REPORT_CHARTS: { id: string; Component: ComponentType; when?: (v: SeriesView) => boolean }[] = [
  { id: 'composition', Component: CompositionChart },
  { id: 'spread', Component: SpreadChart },
  { id: 'agreement', Component: AgreementChart, when: (v) => v.spread.agreement !== null },
  { id: 'canary', Component: CanaryChart },
  { id: 'drift', Component: DriftChart },
  { id: 'orphans', Component: OrphansChart },
];
