// How `watch` follows a transcript that its agent rewrites whole as it grows (a Gemini CLI
// session file, `~/.gemini/tmp/<project>/chats/session-*.json`: chatRecordingService writes
// JSON.stringify(conversation) over it each time): when its size or modification time
// changes it is read again from its start, in bounded chunks, through a new adapter, and
// only the messages past those already sent go out. A snapshot depends only on what came
// before it, so the first messages of each reading are the ones sent before, and the
// stored session analyses as `check` of the whole file (docs/adapters.md "watch").
import fs from 'node:fs';
import path from 'node:path';
import { TranscriptPipeline } from '../ingest/adapters/pipeline.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { TranscriptReader } from '../ingest/transcript.ts';
import { nodeSha256 } from '../node/platform.ts';
import type { FileState } from './watchTail.ts';

const CHUNK_BYTES = 1 << 20;

export interface WholeFileReader {
  /** a new pipeline whose adapted messages go to `emit`, in order */
  makePipeline(emit: (value: unknown) => void): TranscriptPipeline;
  send(value: unknown): void;
  log(line: string): void;
}

/** `.json` files are rewritten whole (the .jsonl ones are appended to, and tailed). */
export function isRewrittenWhole(file: string): boolean {
  return file.endsWith('.json');
}

/**
 * Reads the file again if it changed since `state` (its size in `offset`, the messages
 * sent in `lines`, its mtime); sends the new messages. `maxLineBytes` bounds one message.
 */
export function readWhole(file: string, state: FileState, maxLineBytes: number, reader: WholeFileReader): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return;
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.size === state.offset && st.mtimeMs === state.mtimeMs && st.ino === state.ino) return;
    const sent = st.ino === state.ino || state.ino === undefined ? state.lines : 0;
    let made = 0;
    const pipeline = reader.makePipeline((value) => {
      made++;
      if (made > sent) reader.send(value);
    });
    const split = new TranscriptReader(
      (text, n) => (typeof text === 'string' ? pipeline.line(text, n) : pipeline.error(n, text.error)),
      (n, message) => reader.log(`${file}:${n}: ${message}`),
      undefined,
      { maxLineBytes },
    );
    const buf = Buffer.alloc(CHUNK_BYTES);
    for (let at = 0; at < st.size;) {
      const got = fs.readSync(fd, buf, 0, Math.min(CHUNK_BYTES, st.size - at), at);
      if (got <= 0) break;
      split.push(buf.subarray(0, got));
      at += got;
    }
    split.end();
    pipeline.end();
    if (made < sent)
      reader.log(`${file}: now adapts to ${made} messages, ${sent} were sent before (its history was rewritten); the new ones are sent as they come`);
    Object.assign(state, { offset: st.size, lines: Math.max(made, sent), dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs });
  } finally {
    fs.closeSync(fd);
  }
}

/** The rewritten-whole files watch follows, each with its state (saved in the state file like the tailed ones). */
export class RewrittenFiles {
  private readonly files = new Map<string, FileState>();

  constructor(
    private readonly saved: Record<string, FileState>,
    private readonly maxLineBytes: number,
    private readonly send: (file: string, value: unknown) => void,
    private readonly log: (line: string) => void,
  ) {}

  read(file: string): void {
    let state = this.files.get(file);
    if (state === undefined) {
      state = this.saved[file] ?? { offset: 0, lines: 0 };
      this.files.set(file, state);
    }
    const stem = path.basename(file).replace(/\.json$/, '');
    const log = this.log;
    readWhole(file, state, this.maxLineBytes, {
      makePipeline: (emit) => {
        // as check reads it, with the reference scorer (`auto`); never the product's own lines raw
        const pipeline: TranscriptPipeline = new TranscriptPipeline(
          new ScoringStage(
            {
              text: () => undefined,
              value: (value) => {
                if (pipeline.format !== 'wire') emit(value);
              },
              error: (line, message) => log(`${file}:${line}: ${message}`),
            },
            { mode: 'auto', sha256: nodeSha256 },
          ),
          { fallbackSessionId: stem },
        );
        return pipeline;
      },
      send: (value) => this.send(file, value),
      log,
    });
  }

  states(): [string, FileState][] {
    return [...this.files];
  }
}
