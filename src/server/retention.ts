// `serve --retain 7d` / `--retain-bytes 50G` (docs/relay.md "Retention"): sessions not
// updated for longer than the age, and then the least recently updated sessions while the
// logs together exceed the byte budget, are deleted exactly as `DELETE /api/sessions/<id>`
// deletes them. A live session (a message within LIVE_MS) is never deleted for the byte
// budget: the relay says so instead. The sessions and their bytes come from the store's list
// (sessionStore.ts); with the Redis store every relay sweeps, and deleting a session twice
// is harmless, the second finds nothing.
import { quoted } from './quoted.ts';
import type { SessionStore } from './sessionStore.ts';

export interface RetentionOptions {
  /** delete sessions with no message for this long; null = keep */
  retainMs: number | null;
  /** keep the logs together under this many bytes; null = no budget */
  retainBytes: number | null;
  /** how often to look (default 60 s; also once at start) */
  everyMs?: number;
  /** a session with a message this recent is live: not deleted for the byte budget (default 60 s) */
  liveMs?: number;
}

/** Parses `7d`, `12h`, `30m`, `45s` (or a number of seconds). */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([smhdw]?)$/i.exec(text.trim());
  if (m === null) throw new Error(`${flag} must be a duration like 7d, 12h, 30m or 45s, got ${JSON.stringify(text)}`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[m[2]!.toLowerCase() as '' | 's' | 'm' | 'h' | 'd' | 'w'];
  const ms = Number(m[1]) * unit * 1000;
  if (!(ms >= 1000)) throw new Error(`${flag} must be at least one second, got ${JSON.stringify(text)}`);
  return ms;
}

/** A session as retention sees it. */
export interface RetainedSession {
  id: string;
  /** ms */
  updatedAt: number;
  /** bytes stored */
  size: number;
}

export function startRetention(
  store: Pick<SessionStore, 'list'>,
  options: RetentionOptions,
  remove: (sessionId: string, why: string) => void,
  log: (line: string) => void,
): () => void {
  if (options.retainMs === null && options.retainBytes === null) return () => {};
  let warnedLive = false;
  // oldest first
  const sessions = async (): Promise<RetainedSession[]> => (await store.list()).reverse().map((s) => ({ id: s.id, updatedAt: s.updatedAt, size: s.bytes }));
  let sweeping = false;
  const sweep = async (): Promise<void> => {
    const now = Date.now();
    const oldestFirst = await sessions();
    const kept = [];
    for (const s of oldestFirst) {
      if (options.retainMs !== null && now - s.updatedAt > options.retainMs)
        remove(s.id, `no message for longer than --retain (${Math.round(options.retainMs / 1000)} s)`);
      else kept.push(s);
    }
    if (options.retainBytes === null) return;
    let total = kept.reduce((sum, s) => sum + s.size, 0);
    for (const s of kept) {
      if (total <= options.retainBytes) return;
      if (now - s.updatedAt < (options.liveMs ?? 60_000)) {
        if (!warnedLive)
          log(`the logs hold ${total} bytes, over --retain-bytes ${options.retainBytes}, but what is left is live (${quoted(s.id)} and newer): not deleted`);
        warnedLive = true;
        return;
      }
      total -= s.size;
      remove(s.id, `the logs held more than --retain-bytes (${options.retainBytes} bytes); this was the least recently updated session`);
    }
    warnedLive = false;
  };
  const run = (): void => {
    if (sweeping) return;
    sweeping = true;
    void sweep()
      .catch((e: unknown) => log(`retention could not list the sessions: ${(e as Error).message}`))
      .finally(() => (sweeping = false));
  };
  run();
  const timer = setInterval(run, options.everyMs ?? 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
