// Issue 39: idle sessions give their memory back. Parking a session (analysisThreads.ts) only
// drops its engine from the thread's map; the snapshot it held (about the size of the session's
// last line, texts included) stays in the thread's old space until a full collection, and an
// idle thread allocates nothing that would ever start one: 40 parked sessions of 15 MiB kept
// 900 MiB of RSS for 26 MiB of live heap (bench/idleRss.ts). So the thread collects once the
// engines it dropped since its last collection held enough to matter.

/** a collection once the engines dropped since the last one held about this much (bytes of their last lines) */
export const COLLECT_AFTER_DROPPED_BYTES = 4 * 1024 * 1024;

/** drops that come together (a park sweep posts them in one batch, a few more may follow) share one collection */
const COLLECT_DELAY_MS = 100;

export class CollectAfterDrop {
  /** each engine's last line, bytes: what it holds, about */
  private readonly held = new Map<string, number>();
  private droppedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** collections run after drops (tests, the bench) */
  collections = 0;

  constructor(
    private readonly collect: () => void,
    private readonly thresholdBytes = COLLECT_AFTER_DROPPED_BYTES,
    private readonly delayMs = COLLECT_DELAY_MS,
  ) {}

  /** The session's engine analysed a line of `bytes` bytes. */
  analysed(sessionId: string, bytes: number): void {
    this.held.set(sessionId, bytes);
  }

  /** The session's engine was dropped (parked or deleted). */
  dropped(sessionId: string): void {
    const bytes = this.held.get(sessionId);
    if (bytes === undefined) return;
    this.held.delete(sessionId);
    this.droppedBytes += bytes;
    if (this.droppedBytes < this.thresholdBytes || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.droppedBytes = 0;
      this.collections++;
      this.collect();
    }, this.delayMs);
  }

  /** Bytes dropped and not collected yet (tests). */
  get pendingBytes(): number {
    return this.droppedBytes;
  }
}
