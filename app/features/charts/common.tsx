import { C } from '../../components/theme.ts';

export const CHART_HEIGHT = 210;
export const CHART_MARGIN = { top: 8, right: 8, bottom: 18, left: 4 };
export const AXIS_TICK = { fontSize: 11, fill: C.muted };
export const turnAxisLabel = { value: 'turn', position: 'insideBottom' as const, offset: -10, style: { fontSize: 11, fill: C.muted } };

export function fmtScore(v: unknown): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3);
}

export function fmtInt(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—';
}
