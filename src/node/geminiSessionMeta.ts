// What a session listing shows of a Gemini CLI session file (~/.gemini/tmp/<project>/chats/
// session-*.json or .jsonl) without adapting it: its id, project hash, times and title (the
// first prompt the user typed), read from the file's first bytes in chunks and no further
// than the first prompt (docs/adapters.md "Gemini CLI", "Session listing").
import fs from 'node:fs';
import { userPrompt } from '../ingest/adapters/gemini.ts';
import { isObject, type JsonObject } from '../ingest/adapters/json.ts';
import { JsonDocumentStream } from '../ingest/jsonDocument.ts';

export interface GeminiSessionMeta {
  sessionId: string;
  projectHash: string;
  startTime: string | null;
  /** the last `lastUpdated` read (a .jsonl file updates it as it grows: see `mtimeMs`) */
  lastUpdated: string | null;
  /** the first prompt the user typed, else the session's `summary`, else null */
  title: string | null;
  /** the first workspace folder, when the file names one (`directories`) */
  directory: string | null;
  format: 'json' | 'jsonl';
  mtimeMs: number;
}

const CHUNK = 64 * 1024;

/**
 * Reads at most `maxBytes` of the file (default 4 MiB: a first prompt is near the start);
 * null when the file is not a Gemini CLI session (or cannot be read).
 */
export function readGeminiSessionMeta(file: string, maxBytes = 4 << 20): GeminiSessionMeta | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const mtimeMs = fs.fstatSync(fd).mtimeMs;
    const scan = new MetaScan();
    const decoder = new TextDecoder('utf-8', { fatal: false });
    const buf = Buffer.alloc(CHUNK);
    let carry = '';
    let line = 0;
    for (let at = 0; at < maxBytes && !scan.done;) {
      const got = fs.readSync(fd, buf, 0, Math.min(CHUNK, maxBytes - at), at);
      if (got <= 0) break;
      at += got;
      const lines = (carry + decoder.decode(buf.subarray(0, got), { stream: true })).split('\n');
      carry = lines.pop()!;
      for (const l of lines) if (!scan.done) scan.line(l, ++line);
    }
    if (!scan.done && carry !== '') scan.line(carry, ++line);
    return scan.result(mtimeMs);
  } finally {
    fs.closeSync(fd);
  }
}

class MetaScan {
  done = false;
  private meta: JsonObject | null = null;
  private format: 'json' | 'jsonl' | null = null;
  private title: string | null = null;
  private lastUpdated: string | null = null;
  private doc: JsonDocumentStream | null = null;

  line(text: string, n: number): void {
    if (this.format === null) {
      if (text.trim() === '') return;
      if (text.trim() === '{') {
        this.format = 'json';
        this.meta = {};
        this.doc = new JsonDocumentStream(
          {
            member: (key, value) => {
              if (this.meta !== null && value !== undefined) this.meta[key] = value;
            },
            arrayStart: () => undefined,
            element: (t) => this.message(parse(t)),
            elementError: () => undefined,
          },
          'messages',
        );
      } else {
        this.format = 'jsonl';
        const first = parse(text);
        if (!isObject(first) || typeof first.sessionId !== 'string' || typeof first.projectHash !== 'string') {
          this.done = true;
          return;
        }
        this.meta = first;
        if (Array.isArray(first.messages)) for (const m of first.messages) this.message(m);
        return;
      }
    }
    if (this.doc !== null) return this.doc.push(text, n);
    const record = parse(text);
    if (!isObject(record)) return;
    if (isObject(record.$set)) {
      if (typeof record.$set.lastUpdated === 'string') this.lastUpdated = record.$set.lastUpdated;
      if (Array.isArray(record.$set.messages)) for (const m of record.$set.messages) this.message(m);
    } else this.message(record);
  }

  private message(m: unknown): void {
    if (this.title !== null || !isObject(m)) return;
    const prompt = userPrompt(m);
    if (prompt === null) return;
    this.title = prompt;
    this.done = true;
  }

  result(mtimeMs: number): GeminiSessionMeta | null {
    const m = this.meta;
    if (m === null || typeof m.sessionId !== 'string' || typeof m.projectHash !== 'string') return null;
    const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
    const dirs = Array.isArray(m.directories) ? m.directories : [];
    return {
      sessionId: m.sessionId,
      projectHash: m.projectHash,
      startTime: str(m.startTime),
      lastUpdated: this.lastUpdated ?? str(m.lastUpdated),
      title: this.title ?? str(m.summary),
      directory: str(dirs[0]),
      format: this.format ?? 'jsonl',
      mtimeMs,
    };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
