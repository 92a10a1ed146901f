// contract §4 thresholds. Precedence: a value set by the user (--set, dashboard settings)
// overrides the session header's `config`, which overrides these defaults.
import type { ThresholdOverrides } from './wire.ts';

export interface Thresholds {
  relevance_tolerance: number;
  drift_turns: number;
  max_rewrites: number;
  min_scored: number;
  spread_floor: number;
  collapse_turns: number;
  /** contract §7 reference_disagreement: least rank agreement (Kendall τ-b) with the reference scorer */
  reference_agreement_floor: number;
  /** contract §8 compaction_loss: confirmed losses of one compaction that raise the warning */
  compaction_loss_min: number;
  /** contract §8.7 context_pressure: the share of the context window that raises it */
  pressure_threshold: number;
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = Object.freeze({
  relevance_tolerance: 0.05,
  drift_turns: 2,
  max_rewrites: 2,
  min_scored: 8,
  spread_floor: 0.08,
  collapse_turns: 2,
  reference_agreement_floor: 0,
  compaction_loss_min: 1,
  pressure_threshold: 0.8,
});

export const THRESHOLD_KEYS = Object.keys(DEFAULT_THRESHOLDS) as (keyof Thresholds)[];

/** Which keys must be whole numbers, and their least value. */
const INTEGER_MIN: Partial<Record<keyof Thresholds, number>> = { drift_turns: 1, max_rewrites: 0, min_scored: 0, collapse_turns: 1, compaction_loss_min: 1 };

export function resolveThresholds(header: ThresholdOverrides | undefined, user: Partial<Thresholds>): Thresholds {
  const out: Thresholds = { ...DEFAULT_THRESHOLDS };
  for (const key of THRESHOLD_KEYS) {
    const fromHeader = header?.[key];
    if (typeof fromHeader === 'number') out[key] = fromHeader;
    const fromUser = user[key];
    if (typeof fromUser === 'number') out[key] = fromUser;
  }
  return out;
}

/** Parses one `key=value` setting; returns an error sentence when it is not one. */
export function parseThresholdSetting(setting: string): { key: keyof Thresholds; value: number } | { error: string } {
  const eq = setting.indexOf('=');
  if (eq <= 0) return { error: `--set expects key=value, got ${JSON.stringify(setting)}` };
  const key = setting.slice(0, eq).trim();
  const raw = setting.slice(eq + 1).trim();
  if (!(THRESHOLD_KEYS as string[]).includes(key)) {
    return { error: `unknown threshold ${JSON.stringify(key)}; known: ${THRESHOLD_KEYS.join(', ')}` };
  }
  const k = key as keyof Thresholds;
  const value = raw === '' ? Number.NaN : Number(raw);
  const problem = thresholdProblem(k, value);
  if (problem !== null) return { error: `--set ${key}: ${problem}, got ${JSON.stringify(raw)}` };
  return { key: k, value };
}

export function thresholdProblem(key: keyof Thresholds, value: number): string | null {
  if (!Number.isFinite(value)) return 'must be a finite number';
  // a rank correlation: −1 (opposite order) to 1 (the same order)
  if (key === 'reference_agreement_floor') return value >= -1 && value <= 1 ? null : 'must be between -1 and 1';
  // a share of the window: above 1 it could never fire
  if (key === 'pressure_threshold') return value > 0 && value <= 1 ? null : 'must be above 0 and at most 1';
  const min = INTEGER_MIN[key];
  if (min !== undefined) return Number.isInteger(value) && value >= min ? null : `must be a whole number ≥ ${min}`;
  return value >= 0 ? null : 'must be ≥ 0';
}
