// One palette for the charts and their PNG exports, light theme (badges take their colours
// from styles.css). Colour is never the only cue: every severity also has its word, every
// marker its legend entry.
export const C = {
  fault: '#c62828',
  warning: '#b45309',
  ink: '#1f2933',
  muted: '#5f6b7a',
  grid: '#e4e8ee',
  axis: '#7b8794',
  primary: '#1d4e89',
  band: '#c9d8ec',
  tokens: '#7b8794',
  mean: '#1b7a5a',
  tolBand: '#cfeadd',
  median: '#6b7785',
  cursor: '#111827',
  shadeWarn: '#f7c77d',
  shadeFault: '#f1948a',
  shadeNone: '#d5dae1',
  compaction: '#0f766e',
  /** contract §8.4 item statuses, on the compactions strip and in its panel */
  kept: '#2e7d4f',
  paraphrased: '#d08a1c',
  lost: '#c62828',
  /** not judged: the summary is encrypted (contract §8.4 `unknown`) */
  unknown: '#8d96a3',
} as const;

/** Distinct, print-safe colours for canary lines. */
export const CANARY_COLORS = ['#1d4e89', '#7b2cbf', '#00838f', '#ad1457', '#5d4037', '#33691e'] as const;
