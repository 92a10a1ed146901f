// One palette for charts, badges and PNG exports (light theme; colour is never the only cue:
// every severity also has its word, every marker its legend entry).
export const C = {
  fault: '#c62828',
  faultBg: '#fdecea',
  warning: '#b45309',
  warningBg: '#fff4e0',
  info: '#1d5fa8',
  infoBg: '#e8f1fb',
  ok: '#2e7d32',
  okBg: '#e8f5e9',
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
} as const;

/** Distinct, print-safe colours for canary lines. */
export const CANARY_COLORS = ['#1d4e89', '#7b2cbf', '#00838f', '#ad1457', '#5d4037', '#33691e'] as const;

export const SEVERITY_COLOR = { fault: C.fault, warning: C.warning, info: C.info } as const;
export const SEVERITY_BG = { fault: C.faultBg, warning: C.warningBg, info: C.infoBg } as const;
