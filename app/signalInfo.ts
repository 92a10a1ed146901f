// The plain words for each signal live beside the incident report builder, which the CLI
// shares (src/report); the dashboard takes them from there.
export { SIGNAL_INFO, type SignalInfo } from '../src/report/signalInfo.ts';
