// A worker thread's scheduling priority below its process's main thread, for work that may
// wait when the cores are short: the relay's analysis threads (docs/relay.md "Analysis"),
// whose main thread's fan-out and acks are the latency-bound work. (The report's drawing
// thread was tried at this priority and is not: docs/perf-log/notebook.md.) On Linux a thread has
// its own nice value, set through its thread id.
import fs from 'node:fs';
import os from 'node:os';

/** such a thread's nice value (the main thread keeps the process's, normally 0) */
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
