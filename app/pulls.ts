// How the app pulls shaped data from a Worker: at most one request in flight per panel and
// at most one queued behind it, and redraws held to a rate a person can follow. Used by the
// session on screen (analysis.ts) and by its comparison partner (features/compare).
import { StaleReply } from '../src/worker/client.ts';

/**
 * `run` at most once at a time; a call while it runs queues one more run (not one per call).
 * Calls made in the same task before a run starts are that one run: it starts in a microtask,
 * so it reads the state they left (a finished load selects its default turn, whose
 * subscription pulls the turn, and then refreshes every panel, the turn's among them: one
 * query, not two, and the lineage graph laid out once).
 * A reply for an old job (StaleReply) is expected and dropped; other failures go to `onError`.
 */
export function coalesced(run: () => Promise<void>, onError: (e: unknown) => void): () => void {
  let state: 'idle' | 'starting' | 'running' = 'idle';
  let again = false;
  const start = (): void => {
    state = 'running';
    // a run that throws before it returns its promise fails like one that rejects: the pull stays usable
    let running: Promise<void>;
    try {
      running = run();
    } catch (e) {
      running = Promise.reject(e);
    }
    running
      .catch((e: unknown) => {
        if (!(e instanceof StaleReply)) onError(e);
      })
      .finally(() => {
        state = 'idle';
        if (again) {
          again = false;
          trigger();
        }
      });
  };
  const trigger = (): void => {
    if (state === 'starting') return; // the run about to start sees what this call saw
    if (state === 'running') {
      again = true;
      return;
    }
    state = 'starting';
    queueMicrotask(start);
  };
  return trigger;
}

/** At most one call per `ms`; the last call in a burst always runs. */
export function throttled(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = 0;
  return () => {
    if (timer !== null) return;
    timer = setTimeout(
      () => {
        timer = null;
        last = performance.now();
        fn();
      },
      Math.max(0, last + ms - performance.now()),
    );
  };
}
