// Per-session append-only logs: `<data>/sessions/<encodeURIComponent(id)>.jsonl`, one
// raw wire message per line, line N = seq N (docs/relay-protocol.md). A message is
// written to the OS (writev, synchronously) before anyone is told its seq, so whatever
// was acknowledged survives the process being killed; `fsync` also survives power loss.
//
// Memory per session is bounded whatever the log's length: the header, a ring of the
// last RECENT messages' offsets and turns (for retries and reconnects), one offset per
// CHECKPOINT messages (to start a late subscriber's backlog without a full scan) and, while
// dashboards follow the session, the message just stored.
//
// The store implements sessionStore.ts's contract and nothing more: the ordering rules are
// the gate's (sessionGate.ts), the subscribers the fan-out's (fanout.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { SessionHeader } from '../core/wire.ts';
import { quoted } from './quoted.ts';
import { parseStored, RETRY_WINDOW, turnOf, type Append, type SessionState, type SessionStore, type StoredLine, type TailBatch } from './sessionStore.ts';

/** Messages whose offset and turn are kept exactly: the retry window (sessionStore.ts). */
export const RECENT = RETRY_WINDOW;
/** One remembered byte offset per this many messages. */
const CHECKPOINT = 1024;
const NEWLINE = Buffer.from('\n');
/** up to this many recent lines are read one by one (by their known offsets), more as one range */
const FEW_LINES = 16;
const READ_CHUNK = 1 << 18;
/** Log files kept open for appending at once; others are reopened on demand. */
const OPEN_FILES = 128;

export class SessionLog implements SessionState {
  header: SessionHeader | null = null;
  headerSeq = 0;
  lastSeq = 0;
  /** bytes in the log: the offset where seq lastSeq + 1 will start */
  size = 0;
  lastTurn: number | null = null;
  /** the span ids of the last stored snapshot: the texts a compact snapshot may carry (contract §7) */
  lastSpanIds: string[] | null = null;
  /** the same as a set: validation's id → index map, or built when a compact snapshot first needs it */
  lastSpanIdSet: { has(id: string): boolean } | null = null;
  createdAt: number;
  updatedAt: number;
  /** orders sessions updated within the same millisecond */
  touched = 0;
  private readonly recentOffset = new Float64Array(RECENT);
  /** turn of each recent message; NaN = a header, or not read back yet after a restart */
  private readonly recentTurn = new Float64Array(RECENT).fill(Number.NaN);
  private readonly checkpoints: number[] = [0];

  constructor(
    readonly id: string,
    readonly file: string,
    now: number,
  ) {
    this.createdAt = now;
    this.updatedAt = now;
  }

  /** the message just stored, kept only while a subscriber waits for it (SessionLogStore.tail) */
  lastLine: Buffer | null = null;

  get bytes(): number {
    return this.size;
  }

  /** Records that seq lastSeq + 1 was written at `size` with `bytes` bytes. */
  noteAppended(bytes: number, turn: number | null, now: number): number {
    const seq = ++this.lastSeq;
    const slot = seq % RECENT;
    this.recentOffset[slot] = this.size;
    this.recentTurn[slot] = turn ?? Number.NaN;
    if ((seq - 1) % CHECKPOINT === 0) this.checkpoints[(seq - 1) / CHECKPOINT] = this.size;
    this.size += bytes + 1;
    if (turn !== null) this.lastTurn = turn;
    this.updatedAt = now;
    return seq;
  }

  /** contract §7 compact wire: the ids the next snapshot may carry texts for. */
  noteSpanIds(ids: string[], index?: ReadonlyMap<string, number>): void {
    this.lastSpanIds = ids;
    // building a Set of 200 ids per snapshot showed in the relay's profile: the map validation built serves
    this.lastSpanIdSet = index ?? null;
  }

  /** The oldest seq whose offset is known exactly. */
  oldestRecent(): number {
    return Math.max(1, this.lastSeq - RECENT + 1);
  }

  recentOffsetOf(seq: number): number {
    return this.recentOffset[seq % RECENT]!;
  }

  /** The byte range of a recent seq's line (without its newline). */
  recentRange(seq: number): { start: number; end: number } {
    const start = this.recentOffset[seq % RECENT]!;
    const end = seq === this.lastSeq ? this.size - 1 : this.recentOffset[(seq + 1) % RECENT]! - 1;
    return { start, end };
  }

  /** the turn of a recent seq (null: a header), when known without reading it back */
  recentTurnOf(seq: number): number | null | undefined {
    if (seq === this.headerSeq) return null;
    const t = this.recentTurn[seq % RECENT]!;
    return Number.isNaN(t) ? undefined : t;
  }

  setRecentTurn(seq: number, turn: number): void {
    this.recentTurn[seq % RECENT] = turn;
  }

  /** Nearest remembered offset at or before the start of `seq`. */
  checkpointBefore(seq: number): { seq: number; offset: number } {
    const k = Math.min(Math.floor((seq - 1) / CHECKPOINT), this.checkpoints.length - 1);
    return { seq: k * CHECKPOINT + 1, offset: this.checkpoints[k]! };
  }
}

export interface StoreOptions {
  dataDir: string;
  /** fdatasync after every append: survives power loss, costs a disk flush per message */
  fsync?: boolean;
  log?: (line: string) => void;
}

export class SessionLogStore implements SessionStore {
  readonly name = 'files';
  readonly sessionsDir: string;
  private appends = 0;
  private lostReason: string | null = null;
  private readonly sessions = new Map<string, SessionLog>();
  /** open append descriptors, least recently used first */
  private readonly fds = new Map<string, number>();
  private readonly fsync: boolean;
  private readonly log: (line: string) => void;
  /** per session id (one that does not exist yet too): the tails waiting for its next append */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(options: StoreOptions) {
    this.sessionsDir = path.join(options.dataDir, 'sessions');
    this.fsync = options.fsync ?? false;
    this.log = options.log ?? (() => {});
  }

  /**
   * Why nothing more can be stored (the data directory, or a log, vanished under the
   * relay), or null. Once set, every append is refused: acknowledging a message that
   * will be gone after a restart would break the relay's one promise.
   */
  get lost(): string | null {
    return this.lostReason;
  }

  markLost(why: string): void {
    if (this.lostReason !== null) return;
    this.lostReason = `${why}; nothing more is acknowledged: restore the data directory and restart the relay`;
    this.log(this.lostReason);
  }

  static fileName(sessionId: string): string {
    return encodeURIComponent(sessionId) + '.jsonl';
  }

  get(sessionId: string): SessionLog | undefined {
    return this.sessions.get(sessionId);
  }

  state(sessionId: string): SessionLog | undefined {
    return this.sessions.get(sessionId);
  }

  count(): number {
    return this.sessions.size;
  }

  knownCount(): number {
    return this.sessions.size;
  }

  list(): Promise<SessionLog[]> {
    return Promise.resolve(this.byRecency());
  }

  /**
   * Appends one line and returns its seq. On a write error the log is cut back to its
   * previous length (no half line is left behind), a session it would have created is
   * removed again, and the error is thrown: nothing is acknowledged.
   */
  append(a: Append): number | null {
    const existing = this.sessions.get(a.sessionId);
    if ((existing?.lastSeq ?? 0) !== a.expectedLastSeq) return null;
    const session = existing ?? this.create(a.sessionId);
    let seq: number;
    try {
      seq = this.appendLine(session, a.bytes, a.turn);
    } catch (e) {
      if (existing === undefined) this.delete(a.sessionId);
      throw e;
    }
    if (a.header !== null) {
      session.header = a.header;
      session.headerSeq = seq;
    }
    if (a.spanIds !== undefined) session.noteSpanIds(a.spanIds, a.spanIndex);
    this.wake(a.sessionId, session, a.bytes);
    return seq;
  }

  private create(sessionId: string): SessionLog {
    const s = new SessionLog(sessionId, path.join(this.sessionsDir, SessionLogStore.fileName(sessionId)), Date.now());
    this.sessions.set(sessionId, s);
    return s;
  }

  /** Tells the tails waiting on `sessionId` that it changed; `line`: the message just stored, which they read next. */
  private wake(sessionId: string, session: SessionLog | null, line: Buffer | null): void {
    const waiters = this.waiting.get(sessionId);
    if (session !== null) session.lastLine = waiters === undefined ? null : line;
    if (waiters === undefined) return;
    this.waiting.delete(sessionId);
    for (const w of waiters) w();
  }

  private appendLine(session: SessionLog, bytes: Buffer, turn: number | null): number {
    if (this.lost !== null) throw new Error(this.lost);
    const fd = this.fdFor(session);
    try {
      writeFully(fd, bytes);
      if (this.fsync) fs.fdatasyncSync(fd);
      // A log deleted while open (rm -rf of the data directory) still takes writes, which
      // vanish with the last descriptor: its link count is 0. One fstat per message is
      // cheap next to the write (bench/relay.ts measures it); acknowledging is not.
      const open = fs.fstatSync(fd);
      if (open.nlink === 0) {
        this.markLost(`the log of session ${quoted(session.id)} (${session.file}) was deleted while the relay ran`);
        throw new Error(this.lost!);
      }
      // The data directory moved (mv) keeps the open log linked, under another name: the
      // writes land in the moved files. One stat of the path tells (a few µs more).
      if (!samePlace(session.file, open)) {
        this.markLost(`the log of session ${quoted(session.id)} (${session.file}) was moved or replaced while the relay ran`);
        throw new Error(this.lost!);
      }
    } catch (e) {
      try {
        fs.ftruncateSync(fd, session.size);
      } catch {
        // the original error is the one to report
      }
      this.closeFd(session.id);
      throw e;
    }
    session.touched = ++this.appends;
    return session.noteAppended(bytes.length, turn, Date.now());
  }

  /** Sessions, most recently updated first. */
  byRecency(): SessionLog[] {
    return [...this.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt || b.touched - a.touched);
  }

  /** Removes a session and its log. */
  delete(sessionId: string): boolean {
    const s = this.sessions.get(sessionId);
    if (s === undefined) return false;
    this.closeFd(sessionId);
    this.sessions.delete(sessionId);
    fs.rmSync(s.file, { force: true });
    this.wake(sessionId, null, null);
    return true;
  }

  async *read(sessionId: string, from: number, to: number): AsyncGenerator<StoredLine[]> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    const last = Math.min(to, session.lastSeq);
    let next = Math.max(1, from);
    if (next > last) return;
    // the message just stored, kept for a follower: only when that one is asked for (a retry's
    // bisection reads one earlier seq at a time, which must come from the file)
    if (next === session.lastSeq && session.lastLine !== null) {
      yield [{ seq: next, bytes: session.lastLine, turn: session.recentTurnOf(next) }];
      return;
    }
    if (next >= session.oldestRecent() && last - next < FEW_LINES) {
      // a few recent lines (a retry's stored copy, a live subscriber's next): their offsets are known
      const lines: StoredLine[] = [];
      for (; next <= last; next++) lines.push({ seq: next, bytes: this.readRecentLine(session, next), turn: session.recentTurnOf(next) });
      yield lines;
      return;
    }
    const start = await this.offsetOf(session, next);
    const end = last === session.lastSeq ? session.size : await this.offsetOf(session, last + 1);
    let carry: Buffer | null = null;
    for await (const chunk of readChunks(session.file, start, end)) {
      const data: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
      const lines: StoredLine[] = [];
      let i = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, i);
        if (nl === -1) break;
        lines.push({ seq: next++, bytes: data.subarray(i, nl) });
        i = nl + 1;
      }
      carry = i < data.length ? data.subarray(i) : null;
      if (lines.length > 0) yield lines;
    }
    if (next !== last + 1) throw new Error(`${session.file}: expected to reach seq ${last}, reached ${next - 1}`);
  }

  async *tail(sessionId: string, after: number, signal: AbortSignal): AsyncGenerator<TailBatch> {
    let next = after + 1;
    let seen = false;
    let reportedEnd = false;
    while (!signal.aborted) {
      const s = this.sessions.get(sessionId);
      if (s !== undefined && s.lastSeq >= next) {
        seen = true;
        reportedEnd = false;
        const target = s.lastSeq;
        for await (const lines of this.read(sessionId, next, target)) {
          next = lines[lines.length - 1]!.seq + 1;
          yield { lines, atEnd: next > (this.sessions.get(sessionId)?.lastSeq ?? 0) };
          if (signal.aborted) return;
        }
        reportedEnd = next > (this.sessions.get(sessionId)?.lastSeq ?? 0);
        continue;
      }
      if (seen && s === undefined) return; // deleted
      if (!reportedEnd) {
        reportedEnd = true;
        yield { lines: [], atEnd: true };
        continue;
      }
      // looked at and waited for in one synchronous step: no append falls between
      await new Promise<void>((resolve) => {
        let set = this.waiting.get(sessionId);
        if (set === undefined) this.waiting.set(sessionId, (set = new Set()));
        const done = (): void => {
          set.delete(done);
          if (set.size === 0 && this.waiting.get(sessionId) === set) this.waiting.delete(sessionId);
          signal.removeEventListener('abort', done);
          resolve();
        };
        set.add(done);
        signal.addEventListener('abort', done);
      });
    }
  }

  /** Reads back one stored line (only for seqs within the recent ring). */
  readRecentLine(session: SessionLog, seq: number): Buffer {
    const { start, end } = session.recentRange(seq);
    const buf = Buffer.allocUnsafe(end - start);
    const fd = fs.openSync(session.file, 'r');
    try {
      let at = 0;
      while (at < buf.length) {
        const n = fs.readSync(fd, buf, at, buf.length - at, start + at);
        if (n === 0) throw new Error(`${session.file} is shorter than the relay recorded`);
        at += n;
      }
    } finally {
      fs.closeSync(fd);
    }
    return buf;
  }

  /** Byte offset where the line of `seq` starts (1 ≤ seq ≤ lastSeq + 1). */
  async offsetOf(session: SessionLog, seq: number): Promise<number> {
    if (seq > session.lastSeq) return session.size;
    if (seq >= session.oldestRecent()) return session.recentOffsetOf(seq);
    const from = session.checkpointBefore(seq);
    let skip = seq - from.seq;
    if (skip === 0) return from.offset;
    let offset = from.offset;
    for await (const chunk of readChunks(session.file, from.offset, session.size)) {
      let i = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, i);
        if (nl === -1) break;
        i = nl + 1;
        if (--skip === 0) return offset + i;
      }
      offset += chunk.length;
    }
    throw new Error(`${session.file} holds fewer lines than the relay recorded`);
  }

  /** Rebuilds every session from its log: what a restarted relay serves. */
  async open(): Promise<void> {
    await fs.promises.mkdir(this.sessionsDir, { recursive: true });
    const names = (await fs.promises.readdir(this.sessionsDir)).filter((n) => n.endsWith('.jsonl')).sort();
    for (const name of names) {
      let id: string;
      try {
        id = decodeURIComponent(name.slice(0, -'.jsonl'.length));
      } catch {
        this.log(`ignoring ${name}: not a session log name`);
        continue;
      }
      if (SessionLogStore.fileName(id) !== name || id === '.' || id === '..') {
        this.log(`ignoring ${name}: not a session log name`);
        continue;
      }
      const s = await this.rebuild(id, path.join(this.sessionsDir, name));
      if (s !== null) this.sessions.set(id, s);
    }
  }

  close(): void {
    for (const id of [...this.fds.keys()]) this.closeFd(id);
  }

  private async rebuild(id: string, file: string): Promise<SessionLog | null> {
    const stat = await fs.promises.stat(file);
    const s = new SessionLog(id, file, stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs);
    s.updatedAt = stat.mtimeMs;
    let lineStart = 0;
    let offset = 0;
    let firstLineEnd = -1;
    for await (const chunk of readChunks(file, 0, stat.size)) {
      let i = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, i);
        if (nl === -1) break;
        const end = offset + nl;
        if (firstLineEnd === -1) firstLineEnd = end;
        s.size = lineStart;
        s.noteAppended(end - lineStart, null, s.updatedAt);
        lineStart = end + 1;
        i = nl + 1;
      }
      offset += chunk.length;
    }
    s.size = lineStart;
    s.updatedAt = stat.mtimeMs;
    if (lineStart < stat.size) {
      // A line without its newline was being written when the
      // process died, so it was never acknowledged; drop it so the next append starts clean.
      await fs.promises.truncate(file, lineStart);
      this.log(`session ${JSON.stringify(id)}: removed an incomplete last line (${stat.size - lineStart} bytes) left by a crash; it had not been acknowledged`);
    }
    if (s.lastSeq === 0) return null;
    const first = parseStored(await readRange(file, 0, firstLineEnd));
    if (isHeader(first)) {
      s.header = first;
      s.headerSeq = 1;
    }
    // the last stored snapshot's turn: what the next snapshot must exceed
    for (let seq = s.lastSeq; seq >= s.oldestRecent(); seq--) {
      const { start, end } = s.recentRange(seq);
      const v = parseStored(await readRange(file, start, end));
      const turn = turnOf(v);
      if (turn !== null) {
        s.lastTurn = turn;
        s.lastSpanIds = spanIdsOf(v);
        s.setRecentTurn(seq, turn);
        break;
      }
    }
    return s;
  }

  private fdFor(session: SessionLog): number {
    const open = this.fds.get(session.id);
    if (open !== undefined) {
      this.fds.delete(session.id);
      this.fds.set(session.id, open);
      return open;
    }
    if (this.fds.size >= OPEN_FILES) {
      const oldest = this.fds.keys().next().value;
      if (oldest !== undefined) this.closeFd(oldest);
    }
    const fd = fs.openSync(session.file, 'a');
    this.fds.set(session.id, fd);
    return fd;
  }

  private closeFd(sessionId: string): void {
    const fd = this.fds.get(sessionId);
    if (fd === undefined) return;
    this.fds.delete(sessionId);
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
  }
}

function writeFully(fd: number, bytes: Buffer): void {
  let written = fs.writevSync(fd, [bytes, NEWLINE]);
  const total = bytes.length + 1;
  while (written < total) {
    written += written < bytes.length ? fs.writeSync(fd, bytes, written) : fs.writeSync(fd, NEWLINE);
  }
}

export async function* readChunks(file: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (end <= start) return;
  const handle = await fs.promises.open(file, 'r');
  try {
    let pos = start;
    while (pos < end) {
      const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - pos));
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return;
      pos += bytesRead;
      yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

async function readRange(file: string, start: number, end: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of readChunks(file, start, end)) parts.push(c);
  return Buffer.concat(parts);
}

function isHeader(v: unknown): v is SessionHeader {
  return typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'session';
}

/** The span ids of a stored snapshot (compact or whole), in order. */
export function spanIdsOf(v: unknown): string[] | null {
  const spans = (v as { spans?: unknown }).spans;
  if (!Array.isArray(spans)) return null;
  return spans.map((sp) => String((sp as { span_id?: unknown }).span_id));
}

/** Whether `file` still names the open log `open` (false when it is gone or another file). */
function samePlace(file: string, open: fs.Stats): boolean {
  let named: fs.Stats | undefined;
  try {
    named = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return true; // cannot look (EACCES…): not proof of a move
  }
  return named !== undefined && named.ino === open.ino && named.dev === open.dev;
}
