// A thread of `check`'s file pool (batchCheck.ts): reads one file at a time, as `check FILE`
// would alone, and answers with what the main thread prints for it: the --json line in pieces
// (jsonPieces.ts), or the human row (batchRows.ts). Only that crosses back, never the report.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { reachesFailLevel } from '../core/checkOutput.ts';
import { batchRow, unreadableRow, type BatchRow } from './batchRows.ts';
import { checkTranscript, type CheckOptions } from './check.ts';
import { checkJson } from './checkOutput.ts';
import { noSnapshotSentence, notATranscript } from './adapterNote.ts';
import { jsonPieces } from './jsonPieces.ts';
import { descriptorPath } from '../node/openRegular.ts';

/** What the pool gives each thread: check's options that can cross a thread (no callbacks). */
export interface BatchWorkerData {
  check: Omit<CheckOptions, 'onProgress' | 'onOutcome'>;
  json: boolean;
  failOn: 'fault' | 'warning' | 'never';
}

export interface BatchJob {
  index: number;
  file: string;
  /** found in a folder as a regular file: read only while it still is one (readListed) */
  regular?: true;
  /** its path's bytes when a name on it is not UTF-8 (batchFiles.ts Listed): what it is opened by */
  raw?: Uint8Array;
  /** found in a folder as an OpenHands conversation: read only while it still is one (check.ts CheckOptions) */
  conversation?: true;
}

export interface BatchAnswer {
  index: number;
  /** as `check FILE` alone exits: 0, 1, or 2 (not read, or no valid snapshot) */
  status: 0 | 1 | 2;
  /** --json: the file's line, in pieces of about a MiB */
  json?: string[];
  row?: BatchRow;
  /** what `check FILE` alone writes to stderr for it */
  note?: string;
}

/** A line's pieces are joined up to this many characters before they cross to the main thread. */
const CROSSING_CHARS = 1 << 20;

function pieces(value: unknown): string[] {
  const out: string[] = [];
  let held: string[] = [];
  let chars = 0;
  for (const p of jsonPieces(value)) {
    held.push(p);
    chars += p.length;
    if (chars >= CROSSING_CHARS) {
      out.push(held.join(''));
      held = [];
      chars = 0;
    }
  }
  held.push('\n');
  out.push(held.join(''));
  return out;
}

export async function answer(job: BatchJob, data: BatchWorkerData): Promise<BatchAnswer> {
  const { index, file } = job;
  let result;
  try {
    // one thread per file: the pool spreads the files over the cores, not a file's lines
    // and each thread reads its file's chunks itself: every core has a file already (readFile.ts ReadHooks.inPlace)
    const options: CheckOptions = { ...data.check, threads: 1, readsInPlace: true, ...(job.conversation === true ? { conversation: true } : {}) };
    result =
      job.regular === true
        ? await readListed(file, job.raw, (readPath) => checkTranscript(readPath, { ...options, name: file }))
        : await checkTranscript(file, options);
  } catch (e) {
    const error = (e as Error).message;
    return {
      index,
      status: 2,
      note: `cannot read ${file}: ${error}`,
      ...(data.json ? { json: pieces({ file, error }) } : { row: unreadableRow(file, error) }),
    };
  }
  // docs/adapters.md "None of them": one sentence for the file, as `check FILE` alone says it
  const notOne = data.check.from === undefined ? notATranscript(result.adapter, result.report) : null;
  if (notOne !== null) {
    const error = `${file} is ${notOne}`;
    return { index, status: 2, note: error, ...(data.json ? { json: pieces({ file, error }) } : { row: unreadableRow(file, error) }) };
  }
  const snapshots = result.report.sessions.reduce((n, s) => n + s.turns, 0);
  const status = snapshots === 0 ? 2 : reachesFailLevel(result.report, data.failOn) ? 1 : 0;
  const note = snapshots === 0 ? noSnapshotSentence(file, result.adapter, result.report) : undefined;
  return {
    index,
    status,
    ...(note === undefined ? {} : { note }),
    // the line `check FILE --json` prints, with the file's path as its first key
    ...(data.json
      ? { json: pieces({ file, ...checkJson(result) }) }
      : { row: batchRow(file, result.adapter.format, result.report, result.pressureThresholds, result.sources) }),
  };
}

/**
 * Reads a file found in a folder only while it is the regular file the listing saw (docs/security.md
 * "check over folders"): opened without blocking, checked by its descriptor (fstat), and read
 * through that descriptor (descriptorPath), never by its name again. A FIFO swapped in after
 * the listing was opened plainly and waited for a writer for ever, and the whole batch with it.
 * Links are followed (contract §6.1.1: the folder is the user's own), so not openRegularFile's O_NOFOLLOW.
 */
async function readListed<T>(file: string, raw: Uint8Array | undefined, use: (readPath: string) => Promise<T>): Promise<T> {
  let handle: fs.promises.FileHandle;
  try {
    // a Buffer crosses a thread as a Uint8Array
    const at = raw === undefined ? file : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    handle = await fs.promises.open(at, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    // gone, a dangling link: read by name, so that its line says what `check FILE` alone says
    // (contract §6.1.1; test/cli/batch.test.ts compares them); a name that is not UTF-8 has no
    // other name to read it by
    if (raw !== undefined) throw e;
    return use(file);
  }
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file (a FIFO, a device, a socket or a folder) since the folder was listed: not read');
    return await use(descriptorPath(handle) ?? file);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** tests only (test/cli/batch.test.ts): the thread given a file of this name stops, as a crash would stop it */
const STOP_ENV = 'CONTEXT_HEALTH_TEST_STOP_BATCH_AT';

if (parentPort !== null && (workerData as { batch?: true } | null)?.batch === true) {
  const port = parentPort;
  const data = (workerData as { data: BatchWorkerData }).data;
  const stopAt = process.env[STOP_ENV];
  port.on('message', (job: BatchJob) => {
    if (stopAt !== undefined && job.file.endsWith(stopAt)) process.exit(3); // in a worker: this thread only
    void answer(job, data).then((a) => port.postMessage(a));
  });
  port.postMessage('ready');
}
