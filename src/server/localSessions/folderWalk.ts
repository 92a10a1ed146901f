// One agent folder searched for session files, in bounded memory: entries are streamed from
// each directory (fs.opendir), never a whole tree listed at once. A symbolic link is followed
// only when it leads to a place inside the folder's real path, and a directory is entered once
// (by device and inode), so a link loop ends; a link out of the folder (to ~/.ssh/…, another
// project) is counted, not read (docs/security.md "Local sessions").
import fs from 'node:fs';
import path from 'node:path';
import type { AgentFolder } from './agentFolders.ts';
import { conversationStamp } from './openhandsConversation.ts';

export interface FoundFile {
  /** the real path (links resolved), inside the folder's real path */
  path: string;
  size: number;
  mtimeMs: number;
  /**
   * an OpenHands conversation folder (one JSON file per event): what a look knows of it for
   * the cost of two stats, its events/ folder's mtime (an event file created) and its state's
   * size and mtime (openhandsConversation.ts conversationStamp); size is 0 until it is scanned
   */
  conversation?: string;
}

export interface WalkReport {
  /** the folder's real path, null when it could not be opened */
  realRoot: string | null;
  /** why the folder could not be read whole, null when it was */
  problem: string | null;
  /** the folder does not exist (an optional folder, AgentFolder.optional, is then no line) */
  missing: boolean;
  /** links out of the folder, not followed */
  linksOut: number;
  /** sub-folders that could not be read */
  unreadable: number;
}

/** deeper than any agent writes (Codex: YYYY/MM/DD; Claude Code: project/session/subagents) */
const MAX_DEPTH = 8;
/** files stat'ed between two turns of the event loop (~1-3 ms of work) */
const STAT_BATCH = 256;

/** Calls `found` for each session file of the folder; resolves with what could not be read. */
export async function walkFolder(folder: AgentFolder, found: (file: FoundFile) => void, shouldStop: () => boolean = () => false): Promise<WalkReport> {
  const report: WalkReport = { realRoot: null, problem: null, missing: false, linksOut: 0, unreadable: 0 };
  let realRoot: string;
  try {
    // the folder itself may be a link (dotfiles kept elsewhere): it is the user's own choice
    realRoot = await fs.promises.realpath(folder.root);
    const st = await fs.promises.stat(realRoot);
    if (!st.isDirectory()) return { ...report, problem: `${folder.root} is not a folder` };
  } catch (e) {
    return { ...report, problem: folderProblem(folder.root, e), missing: (e as NodeJS.ErrnoException).code === 'ENOENT' };
  }
  report.realRoot = realRoot;
  const entered = new Set<string>();
  const inside = (p: string): boolean => p === realRoot || p.startsWith(realRoot + path.sep);

  const walk = async (dir: string, parts: readonly string[]): Promise<void> => {
    if (parts.length > MAX_DEPTH || shouldStop()) return;
    let st: fs.Stats;
    let handle: fs.Dir;
    try {
      st = await fs.promises.stat(dir);
      const key = `${st.dev}:${st.ino}`;
      if (entered.has(key)) return; // a link back to a folder already searched
      entered.add(key);
      // an OpenHands conversation is one row, its event files not searched (nor each stat'ed: the scan does, when it changed)
      if (folder.conversation?.(parts) === true) {
        const stamp = await conversationStamp(dir, realRoot, folder.strictConversations === true);
        if (stamp === 'out') report.linksOut++;
        else if (stamp !== null) {
          found({ path: dir, size: 0, mtimeMs: stamp.mtimeMs, conversation: stamp.stamp });
          return;
        }
      }
      handle = await fs.promises.opendir(dir, { bufferSize: 64 });
    } catch {
      report.unreadable++;
      return;
    }
    // files are stat'ed a batch at a time, synchronously (a promise round trip per file cost ~5× the
    // stat itself: bench/localSessions.ts), with the event loop let go between batches
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      for (const full of batch) {
        const fst = fs.statSync(full, { throwIfNoEntry: false });
        if (fst === undefined)
          report.unreadable++; // removed between the listing and the stat
        else found({ path: full, size: fst.size, mtimeMs: fst.mtimeMs });
      }
      batch = [];
      await new Promise((r) => setImmediate(r));
    };
    try {
      for await (const entry of handle) {
        if (shouldStop()) break;
        const rel = [...parts, entry.name];
        let full = path.join(dir, entry.name);
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          if (!folder.descend(rel) && !folder.accept(rel) && folder.conversation?.(rel) !== true) continue;
          try {
            full = await fs.promises.realpath(full);
          } catch {
            report.unreadable++; // a dangling link, or a loop of links (ELOOP)
            continue;
          }
          if (!inside(full)) {
            report.linksOut++;
            continue;
          }
          try {
            const target = await fs.promises.stat(full);
            isDir = target.isDirectory();
            isFile = target.isFile();
          } catch {
            report.unreadable++;
            continue;
          }
        }
        if (isDir) {
          if (folder.descend(rel) || folder.conversation?.(rel) === true) await walk(full, rel);
        } else if (isFile && folder.accept(rel)) {
          batch.push(full);
          if (batch.length >= STAT_BATCH) await flush();
        }
      }
      await flush();
    } catch {
      report.unreadable++;
    } finally {
      await handle.close().catch(() => undefined);
    }
  };
  await walk(realRoot, []);
  const notes: string[] = [];
  if (report.unreadable > 0) notes.push(`${report.unreadable} entr${report.unreadable === 1 ? 'y' : 'ies'} could not be read`);
  if (report.linksOut > 0) notes.push(`${report.linksOut} link${report.linksOut === 1 ? '' : 's'} out of the folder not followed`);
  if (notes.length > 0) report.problem = notes.join('; ');
  return report;
}

function folderProblem(root: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${root} does not exist (no sessions of this agent here)`;
  if (code === 'EACCES' || code === 'EPERM') return `${root} cannot be read (permission denied)`;
  if (code === 'ELOOP') return `${root} is a loop of symbolic links`;
  if (code === 'ENOTDIR') return `${root} is not a folder`;
  return `${root} cannot be read: ${(e as Error).message}`;
}
