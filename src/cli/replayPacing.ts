// How `replay` turns a transcript back into a live session: snapshots paced by their own
// `ts` scaled by --speed, and sessions renamed with --session.

/** turns without a `ts` are paced at one a second (at --speed 1) */
const DEFAULT_TURN_MS = 1000;

/** Waits before each snapshot as long as the transcript's clock says, scaled and capped. */
export class Pacer {
  private lastTs: number | null = null;
  private nextAt = performance.now();

  /** @param speed 0 = as fast as the relay acknowledges */
  constructor(
    private readonly speed: number,
    private readonly maxGapMs: number,
  ) {}

  async beforeSnapshot(ts: unknown): Promise<void> {
    if (this.speed === 0) return;
    const t = typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
    const { lastTs, maxGapMs } = this;
    const gap = Number.isNaN(t) || lastTs === null ? (lastTs === null && !Number.isNaN(t) ? 0 : DEFAULT_TURN_MS) : t - lastTs;
    if (!Number.isNaN(t)) this.lastTs = t;
    this.nextAt += Math.min(maxGapMs, Math.max(0, gap) / this.speed);
    const wait = this.nextAt - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -maxGapMs) this.nextAt = performance.now(); // fell behind: do not rush to catch up
  }
}

/** The session ids a replay writes to: the file's own, or --session ID (a second session becomes ID/<its id>). */
export class SessionRenamer {
  private readonly ids = new Map<string, string>();

  constructor(private readonly renameTo: string | null) {}

  /** The line to send for this message (re-serialised only when renamed). */
  lineFor(text: string, message: { session_id?: unknown } | undefined): string {
    if (typeof message !== 'object' || message === null || typeof message.session_id !== 'string') return text;
    const own = message.session_id;
    let id = this.ids.get(own);
    if (id === undefined) this.ids.set(own, (id = this.renameTo === null ? own : this.ids.size === 0 ? this.renameTo : `${this.renameTo}/${own}`));
    return this.renameTo === null ? text : JSON.stringify({ ...message, session_id: id });
  }

  /** The sessions written to, in order of appearance. */
  written(): string[] {
    return [...new Set(this.ids.values())];
  }
}
