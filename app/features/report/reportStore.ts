// The incident report being built or last built, for the report dialog.
import { create } from 'zustand';

export interface ReportState {
  open: boolean;
  state: 'idle' | 'building' | 'ready' | 'failed';
  /** what the report is about, as its dialog names it: "Incident 3", "Compaction at turn 160" */
  subject: string | null;
  markdown: string | null;
  zip: Uint8Array | null;
  fileName: string | null;
  error: string | null;
}

export const useReport = create<ReportState>(() => ({ open: false, state: 'idle', subject: null, markdown: null, zip: null, fileName: null, error: null }));
