// The index of the agent sessions on this machine (docs/relay.md "Local sessions"):
// - incremental: each look walks the folders (a stat per file) and reads again only the files
//   whose size or mtime changed; the rest keep what was read;
// - never in the way: a look runs in the background, the listing answers at once with what is
//   known (`indexing` until the first look is done);
// - bounded: at most `maxFiles` rows are kept (the most recently modified), each read from its
//   first and last bytes only; the rest are counted in their folder's line;
// - read-only and opaque: rows are named by a hash of their path, and a file is opened only
//   through a row the index found inside its folder (fileOf).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LocalAgent, LocalAnalysis, LocalFolder, LocalSessionList, LocalSessionRow } from '../../protocol/localSessions.ts';
import type { AgentFolder } from './agentFolders.ts';
import { walkFolder, type FoundFile, type WalkReport } from './folderWalk.ts';
import { geminiProjectRoots } from './geminiProjects.ts';
import { scanConversation } from './openhandsConversation.ts';
import { DEFAULT_HEAD_LIMITS, readSessionHead, type HeadLimits, type SessionHead } from './sessionHead.ts';

export interface AnalysisOutcome {
  analysis: LocalAnalysis | null;
  note: string | null;
}

export interface LocalIndexOptions {
  folders: AgentFolder[];
  /** most rows kept (default 20,000) */
  maxFiles?: number;
  head?: HeadLimits;
  /** files read at once (default 16) */
  readConcurrency?: number;
  /** looks at most this often (default 2 s): a listing asked sooner answers from the last one */
  minLookMs?: number;
  /**
   * the engine `check` runs, on one file or (agent `openhands`) one conversation folder
   * (cli/localSessions.ts injects it); none: rows carry no analysis. `inside`: the real path of
   * the file's folder, which the file it reads must still be in
   */
  analyse?: (file: string, agent: LocalAgent, inside: string | undefined) => Promise<AnalysisOutcome>;
  /** most files analysed in the background per look, newest first (default 200) */
  analyseQueue?: number;
  /** larger files are not analysed in the background (default 16 MiB): opening one analyses it */
  maxAnalyseBytes?: number;
  /** other paths whose sha256 may be a Gemini CLI project hash (the relay's working directory, the home) */
  projectCandidates?: string[];
  now?: () => number;
  /** how a folder is searched (default folderWalk.ts; tests: generated files) */
  walk?: typeof walkFolder;
}

interface Entry {
  id: string;
  path: string;
  agent: LocalAgent;
  folder: number;
  size: number;
  mtimeMs: number;
  head: SessionHead | null;
  analysis: AnalysisOutcome | null;
  /** what the walk saw (size:mtime; a conversation's stamp): a look reads the row again when it changed */
  seenAs: string;
  /** an OpenHands conversation folder (openhandsConversation.ts), not a file */
  conversation: boolean;
  /** what was read (size:mtime; a conversation's event count, size and newest mtime): the analysis is of it */
  content: string;
  /** a conversation whose last event was being written when scanned: read again at the next look */
  unsettled: boolean;
  /** `content` the analysis is of */
  analysedAt: string | null;
}

interface FolderState {
  report: WalkReport | null;
  files: number;
  dropped: number;
}

const DEFAULT_MAX_FILES = 20_000;

export class LocalSessionIndex {
  private entries = new Map<string, Entry>();
  private byId = new Map<string, Entry>();
  private readonly folderStates: FolderState[];
  private looking: Promise<void> | null = null;
  private lastLookAt = -Infinity;
  private lastLookMs = 0;
  private firstLookDone = false;
  private analysing = false;
  private closed = false;
  private readonly maxFiles: number;
  private readonly now: () => number;
  private readonly hashes = new Map<string, string>();
  /** Gemini CLI project hashes no folder was found for when they were first seen */
  private readonly unresolved = new Set<string>();

  constructor(private readonly options: LocalIndexOptions) {
    this.maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    this.now = options.now ?? Date.now;
    this.folderStates = options.folders.map(() => ({ report: null, files: 0, dropped: 0 }));
    for (const p of options.projectCandidates ?? []) this.learnProject(p);
  }

  /** The listing now (newest first, at most `limit` rows); starts a look when the last is old. */
  list(limit = 500): LocalSessionList {
    this.refresh();
    const rows = this.sorted();
    return {
      enabled: true,
      reason: null,
      indexing: !this.firstLookDone,
      // an optional folder (Codex's archive, Gemini CLI's sandbox) is a line once it exists
      folders: this.options.folders.flatMap((f, i) => (f.optional === true && this.folderStates[i]!.report?.missing !== false ? [] : [this.folderLine(f, i)])),
      sessions: rows.slice(0, limit).map((e) => this.rowOf(e)),
      total: rows.length,
    };
  }

  /** The rows newest first, sorted again only when the entries changed since. */
  private sorted(): Entry[] {
    if (this.sortedRows === null || this.sortedOf !== this.entries || this.sortedSize !== this.entries.size) {
      const paths = new Set<string>();
      for (const e of this.entries.values()) paths.add(e.path);
      this.sortedRows = [...this.entries.values()].filter((e) => !supersededGeminiDocument(e.path, paths)).sort((a, b) => b.mtimeMs - a.mtimeMs);
      this.sortedOf = this.entries;
      this.sortedSize = this.entries.size;
    }
    return this.sortedRows;
  }

  private sortedRows: Entry[] | null = null;
  private sortedOf: Map<string, Entry> | null = null;
  private sortedSize = 0;

  /** Starts a look in the background unless one runs or one ended less than minLookMs ago. */
  refresh(): void {
    // a look costs a stat per file: it runs at most every minLookMs, and at most a tenth of the time
    const gap = Math.max(this.options.minLookMs ?? 2000, 10 * this.lastLookMs);
    if (this.closed || this.looking !== null || this.now() - this.lastLookAt < gap) return;
    const started = this.now();
    this.looking = this.look().finally(() => {
      this.lastLookAt = this.now();
      this.lastLookMs = this.lastLookAt - started;
      this.looking = null;
    });
  }

  /** One look, awaited (tests, the bench). */
  async update(): Promise<void> {
    if (this.looking !== null) await this.looking;
    this.lastLookAt = -Infinity;
    this.refresh();
    await this.looking;
  }

  /**
   * The row's file, by its id, once more checked to be a file inside its folder; undefined when it
   * is not one. A conversation is its folder (`conversation`), named as the JSON Lines body it is sent as.
   */
  async fileOf(id: string): Promise<{ path: string; agent: LocalAgent; name: string; root: string; conversation: boolean } | undefined> {
    const e = this.byId.get(id);
    if (e === undefined) return undefined;
    const root = this.folderStates[e.folder]?.report?.realRoot ?? null;
    if (root === null) return undefined;
    if (e.conversation) {
      // its files are each checked when sent (openhandsConversation.ts)
      const real = await fs.promises.realpath(e.path).catch(() => null);
      // removed (or swapped) since the realpath: no row, never a rejection the relay answers 500 with
      if (real === null || !real.startsWith(root + path.sep) || (await fs.promises.stat(real).catch(() => null))?.isDirectory() !== true) return undefined;
      return { path: real, agent: 'openhands', name: `${path.basename(real)}.jsonl`, root, conversation: true };
    }
    try {
      // the path may have become a link since it was found: its real path must still be inside
      const real = await fs.promises.realpath(e.path);
      if (!real.startsWith(root + path.sep) || !(await fs.promises.stat(real)).isFile()) return undefined;
      // the opener checks its descriptor against `root` again: this name may change before it is opened
      return { path: real, agent: e.head?.agent ?? e.agent, name: path.basename(real), root, conversation: false };
    } catch {
      return undefined;
    }
  }

  /** Files modified within `ms` (newest first), with their agent as told: the live follower's list. */
  recent(ms: number): { path: string; agent: LocalAgent }[] {
    const since = Date.now() - ms;
    return (
      [...this.entries.values()]
        // a conversation folder is not a file to tail: it is opened whole
        .filter((e) => e.mtimeMs >= since && e.head?.problem === null && !e.conversation)
        .sort((a, b) => b.mtimeMs - a.mtimeMs)
        .map((e) => ({ path: e.path, agent: e.head?.agent ?? e.agent }))
    );
  }

  /** The relay session a file is followed into (cli/localFollow.ts says). */
  liveSessions = new Map<string, string>();

  close(): void {
    this.closed = true;
  }

  private async look(): Promise<void> {
    const seen = new Map<string, Entry>();
    for (let i = 0; i < this.options.folders.length; i++) {
      const folder = this.options.folders[i]!;
      const found: FoundFile[] = [];
      let dropped = 0;
      // bounded: past twice the limit, only the newest `maxFiles` are kept
      const keep = (f: FoundFile): void => {
        found.push(f);
        if (found.length >= 2 * this.maxFiles) dropped += prune(found, this.maxFiles);
      };
      const report = await (this.options.walk ?? walkFolder)(folder, keep, () => this.closed);
      dropped += prune(found, this.maxFiles);
      this.folderStates[i] = { report, files: found.length, dropped };
      for (const f of found) {
        const old = this.entries.get(f.path);
        const seenAs = f.conversation ?? `${f.size}:${f.mtimeMs}`;
        const unchanged = old !== undefined && old.seenAs === seenAs && !old.unsettled;
        const e: Entry = unchanged
          ? old
          : {
              id: rowId(f.path),
              path: f.path,
              agent: f.conversation === undefined ? folder.agent : 'openhands',
              folder: i,
              // a conversation's size and mtime are its scan's (until then: the old ones, else the walk's)
              size: f.conversation === undefined ? f.size : (old?.size ?? f.size),
              mtimeMs: f.conversation === undefined ? f.mtimeMs : Math.max(old?.mtimeMs ?? 0, f.mtimeMs),
              head: null,
              analysis: old?.analysis ?? null,
              seenAs,
              conversation: f.conversation !== undefined,
              content: seenAs,
              unsettled: false,
              analysedAt: old?.analysedAt ?? null,
            };
        seen.set(f.path, e);
        // the first look shows each folder's rows as soon as it is walked (their heads as they are read)
        if (!this.firstLookDone && !this.entries.has(f.path)) {
          this.entries.set(f.path, e);
          this.byId.set(e.id, e);
        }
      }
    }
    // a file in two folders (a --sessions folder inside an agent's) is one row
    const all = [...seen.values()];
    if (all.length > this.maxFiles) {
      all.sort((a, b) => b.mtimeMs - a.mtimeMs);
      all.length = this.maxFiles;
    }
    this.entries = new Map(all.map((e) => [e.path, e]));
    this.byId = new Map(all.map((e) => [e.id, e]));
    await this.readHeads(all.filter((e) => e.head === null));
    this.sortedRows = null; // a conversation's mtime is its scan's
    for (const e of all) if (e.head?.project) this.learnProject(e.head.project);
    await this.learnGeminiProjects(all);
    this.firstLookDone = true;
    this.startAnalysis();
  }

  private async readHeads(todo: Entry[]): Promise<void> {
    todo.sort((a, b) => b.mtimeMs - a.mtimeMs); // the newest rows, at the top of the page, first
    const limits = this.options.head ?? DEFAULT_HEAD_LIMITS;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length && !this.closed) {
        const e = todo[next++]!;
        const root = this.folderStates[e.folder]?.report?.realRoot ?? null;
        if (!e.conversation) e.head = await readSessionHead(e.path, e.agent, limits);
        else if (root !== null) {
          const scan = await scanConversation(e.path, root, limits);
          e.head = scan.head;
          e.size = scan.size;
          if (scan.mtimeMs > 0) e.mtimeMs = scan.mtimeMs;
          e.content = scan.content;
          e.unsettled = scan.unsettled;
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.readConcurrency ?? 16 }, worker));
  }

  /** The background analysis: one file at a time, newest first, each (size, mtime) once. */
  private startAnalysis(): void {
    const analyse = this.options.analyse;
    if (analyse === undefined || this.analysing) return;
    const maxBytes = this.options.maxAnalyseBytes ?? 16 * 1024 * 1024;
    const queue = [...this.entries.values()]
      .filter((e) => e.head?.problem === null && e.analysedAt !== e.content)
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .slice(0, this.options.analyseQueue ?? 200);
    if (queue.length === 0) return;
    this.analysing = true;
    void (async () => {
      for (const e of queue) {
        if (this.closed) break;
        const stamp = e.content;
        if (e.size > maxBytes) {
          e.analysis = {
            analysis: null,
            note: `not analysed in the background (larger than ${Math.round(maxBytes / 1024 / 1024)} MiB): open it to analyse it`,
          };
        } else {
          try {
            e.analysis = await analyse(e.path, e.head?.agent ?? e.agent, this.folderStates[e.folder]?.report?.realRoot ?? undefined);
          } catch (err) {
            e.analysis = { analysis: null, note: `the analysis failed: ${(err as Error).message}` };
          }
        }
        e.analysedAt = stamp;
        // let the relay's requests in between two files
        await new Promise((r) => setImmediate(r));
      }
      this.analysing = false;
    })();
  }

  /**
   * A Gemini CLI row whose project hash no known folder gives: the folders Gemini CLI's own
   * registry and markers name (geminiProjects.ts), read again only when such a hash is new.
   */
  private async learnGeminiProjects(all: readonly Entry[]): Promise<void> {
    let unknown = false;
    for (const e of all) {
      const hash = e.head?.projectHash;
      if (hash === null || hash === undefined || this.hashes.has(hash) || this.unresolved.has(hash)) continue;
      this.unresolved.add(hash);
      unknown = true;
    }
    if (!unknown) return;
    for (const folder of this.options.folders) {
      if (folder.agent !== 'gemini-cli') continue;
      for (const p of await geminiProjectRoots(folder.root)) {
        this.learnProject(p.folder);
        // a session file without its projectHash is known by its folder's name (sessionHead.ts), now the short id
        if (p.shortId !== null && !this.hashes.has(p.shortId)) this.hashes.set(p.shortId, p.folder);
      }
    }
  }

  private learnProject(dir: string): void {
    this.hashes.set(crypto.createHash('sha256').update(dir).digest('hex'), dir);
  }

  private rowOf(e: Entry): LocalSessionRow {
    const h = e.head;
    return {
      id: e.id,
      agent: h?.agent ?? e.agent,
      project: h === null ? null : (h.project ?? (h.projectHash === null ? null : (this.hashes.get(h.projectHash) ?? h.projectHash))),
      title: h?.title ?? null,
      session_id: h?.sessionId ?? null,
      // a conversation is sent as one JSON Lines body: the page opens it under this name (its session id, as check names the folder's)
      file_name: e.conversation ? `${path.basename(e.path)}.jsonl` : path.basename(e.path),
      bytes: e.size,
      modified_ms: Math.round(e.mtimeMs),
      live_session: this.liveSessions.get(e.path) ?? null,
      problem: h?.problem ?? null,
      // a file that grew keeps its last figures until it is analysed again
      analysis: e.analysis?.analysis ?? null,
      analysis_note: e.analysis?.note ?? null,
    };
  }

  private folderLine(f: AgentFolder, i: number): LocalFolder {
    const s = this.folderStates[i]!;
    const notes: string[] = [];
    if (s.report?.problem) notes.push(s.report.problem);
    if (s.dropped > 0) notes.push(`${s.dropped} older file${s.dropped === 1 ? '' : 's'} not listed (the newest ${this.maxFiles} are)`);
    return { agent: f.agent, path: f.root, problem: notes.length > 0 ? notes.join('; ') : null, files: s.files };
  }
}

/** Keeps the newest `keep` files of `found` (in place); returns how many were dropped. */
function prune(found: FoundFile[], keep: number): number {
  if (found.length <= keep) return 0;
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const dropped = found.length - keep;
  found.length = keep;
  return dropped;
}

/** An opaque row id: the path's hash, so no request carries a path. */
export function rowId(file: string): string {
  return crypto.createHash('sha256').update(file).digest('hex').slice(0, 24);
}

/**
 * Gemini CLI resumes a session of the older `session-<time>-<id>.json` document by writing
 * `session-<time>-<id>.jsonl` beside it (chatRecordingService.ts `initialize`: the file name
 * plus `l`, all the document's messages first), and leaves the `.json` behind: the `.jsonl`
 * is then the session, the `.json` its first part. Gemini CLI's own session list shows the
 * session once; so does this one.
 */
function supersededGeminiDocument(file: string, paths: ReadonlySet<string>): boolean {
  return file.endsWith('.json') && path.basename(file).startsWith('session-') && paths.has(`${file}l`);
}
