// How the app pulls shaped data from a Worker: at most one request in flight per panel and
// at most one queued behind it, and redraws held to a rate a person can follow. Used by the
// session on screen (analysis.ts) and by its comparison partner (features/compare).
import { StaleReply } from '../src/worker/client.ts';

/**
 * `run` at most once at a time; a call while it runs queues one more run (not one per call).
 * A reply for an old job (StaleReply) is expected and dropped; other failures go to `onError`.
 */
export function coalesced(run: () => Promise<void>, onError: (e: unknown) => void): () => void {
  let inFlight = false;
  let again = false;
  const trigger = (): void => {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    run()
      .catch((e: unknown) => {
        if (!(e instanceof StaleReply)) onError(e);
      })
      .finally(() => {
        inFlight = false;
        if (again) {
          again = false;
          trigger();
        }
      });
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
