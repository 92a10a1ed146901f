import { memo, useEffect, useRef } from 'react';
import { outOfScopeOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { AgentSections } from './AgentSections.tsx';
import { setUi } from '../../stores/ui.ts';
import { AXES_PX } from '../../../src/charts/common.tsx';
import { AgreementChart as AgreementChartImpl } from '../../../src/charts/AgreementChart.tsx';
import { CanaryChart as CanaryChartImpl } from '../../../src/charts/CanaryChart.tsx';
import { DriftChart as DriftChartImpl } from '../../../src/charts/DriftChart.tsx';
import { OrphansChart as OrphansChartImpl } from '../../../src/charts/OrphansChart.tsx';
import { Overview as OverviewImpl } from './Overview.tsx';
import { SpreadChart as SpreadChartImpl } from '../../../src/charts/SpreadChart.tsx';
import { CompactionsStrip } from '../compactions/CompactionsStrip.tsx';
import { CompositionChart as CompositionChartImpl } from '../../../src/charts/CompositionChart.tsx';

// memo: the container re-renders when the turn count changes; the charts take their
// data themselves, each in its own task (useChartView)
const Overview = memo(OverviewImpl);
const SpreadChart = memo(SpreadChartImpl);
const CanaryChart = memo(CanaryChartImpl);
const DriftChart = memo(DriftChartImpl);
const OrphansChart = memo(OrphansChartImpl);
const AgreementChart = memo(AgreementChartImpl);
const CompositionChart = memo(CompositionChartImpl);

export function Charts() {
  const ref = useRef<HTMLDivElement>(null);
  const turns = useAnalysis((s) => s.view?.turnCount ?? 0);
  // contract §8.1: an imported agent's session, where no score detector ran, is laid out for
  // what was measured (AgentSections.tsx); every other session keeps the scored loop's order
  const outOfScope = useAnalysis(outOfScopeOnScreen);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width ?? 800;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => setUi({ chartWidth: Math.max(200, Math.round(w - AXES_PX)) }), 150);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      if (timer !== null) clearTimeout(timer);
    };
  }, []);
  return (
    <div className="charts" ref={ref} data-testid="charts" data-view-turns={turns} data-layout={outOfScope ? 'agent' : 'scored'}>
      {outOfScope ? (
        <AgentSections
          overview={<Overview />}
          compactions={<CompactionsStrip />}
          composition={<CompositionChart />}
          scores={[<SpreadChart key="spread" />, <AgreementChart key="agreement" />, <CanaryChart key="canary" />, <DriftChart key="drift" />]}
          orphans={<OrphansChart />}
        />
      ) : (
        <ScoredCharts />
      )}
    </div>
  );
}

/** A scored loop's charts, in today's order (contract §6.3 hooks); the compaction panel follows them (Workspace.tsx). */
function ScoredCharts() {
  return (
    <>
      <Overview />
      <CompositionChart />
      <SpreadChart />
      <AgreementChart />
      <CanaryChart />
      <DriftChart />
      <OrphansChart />
      <CompactionsStrip />
    </>
  );
}
