// The incident report being built or last built, for the report dialog.
import { create } from 'zustand';

export interface ReportState {
  open: boolean;
  state: 'idle' | 'building' | 'ready' | 'failed';
  incident: number | null;
  markdown: string | null;
  zip: Uint8Array | null;
  fileName: string | null;
  error: string | null;
}

export const useReport = create<ReportState>(() => ({ open: false, state: 'idle', incident: null, markdown: null, zip: null, fileName: null, error: null }));
