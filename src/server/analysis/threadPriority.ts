// The analysis threads' scheduling priority (docs/relay.md "Analysis"): below the main
// thread's, whose fan-out to viewers and acks are the latency-bound work, while an analysis
// thread only has to keep up on average (its answers wait, and count for backpressure,
// meanwhile). On Linux a thread has its own nice value, set through its thread id.
import fs from 'node:fs';
import os from 'node:os';

/** an analysis thread's nice value (the main thread keeps the process's, normally 0) */
export const ANALYSIS_NICE = 10;

/**
 * Lowers the calling thread's priority to ANALYSIS_NICE (its id read from
 * /proc/thread-self). Elsewhere than Linux, or where it is not allowed, the thread keeps the
 * process's priority: false.
 */
export function lowerThreadPriority(): boolean {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, Math.max(os.getPriority(tid), ANALYSIS_NICE));
    return true;
  } catch {
    return false;
  }
}
