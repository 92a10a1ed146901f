// `context-health replay <file>` (SPEC §6): streams a saved transcript into a running
// relay as a live session, paced by the snapshots' `ts` (scaled by --speed), through the
// same harness client a TypeScript harness uses. The file is read in pieces, never whole.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { HarnessClient, RelayRejected, type Ack } from '../client/harness.ts';
import { isGzip, TranscriptReader } from '../ingest/transcript.ts';
import { nodeDecoder } from '../node/platform.ts';

export const REPLAY_USAGE = `usage: context-health replay <file> [options]
  <file>             a transcript: .jsonl, .jsonl.gz or .json (or - for stdin)
  --url URL          the relay (default http://127.0.0.1:8787)
  --speed X          X times the original pace, from the snapshots' ts (default 1);
                     0 or max = as fast as the relay acknowledges
  --max-gap S        wait at most S seconds between two turns, however far apart their ts (default 10)
  --session ID       replay under this session id (a second session in the file becomes ID/<its id>)
  --token T          the relay's ingest token (or env CONTEXT_HEALTH_TOKEN)`;

/** turns without a `ts` are paced at one a second (at --speed 1) */
const DEFAULT_TURN_MS = 1000;
/** messages handed to the client and not yet acknowledged */
const WINDOW = 256;
const SHOWN_ERRORS = 50;

interface Rejected {
  line: number;
  message: string;
}

export async function runReplay(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8787' },
      speed: { type: 'string', default: '1' },
      'max-gap': { type: 'string', default: '10' },
      session: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(REPLAY_USAGE + '\n');
    return 0;
  }
  const usage = (why: string): number => {
    process.stderr.write(`context-health replay: ${why}\n${REPLAY_USAGE}\n`);
    return 2;
  };
  if (positionals.length !== 1) return usage('replay takes exactly one file (or - for stdin)');
  const file = positionals[0]!;
  const speed = values.speed === 'max' ? 0 : Number(values.speed);
  if (!Number.isFinite(speed) || speed < 0) return usage(`--speed must be a number ≥ 0 or "max", got ${JSON.stringify(values.speed)}`);
  const maxGapMs = Number(values['max-gap']) * 1000;
  if (!Number.isFinite(maxGapMs) || maxGapMs < 0) return usage(`--max-gap must be a number of seconds ≥ 0, got ${JSON.stringify(values['max-gap'])}`);
  const renameTo = values.session ?? null;
  if (renameTo === '') return usage('--session must not be empty');
  let base: URL;
  try {
    base = new URL(values.url.endsWith('/') ? values.url : values.url + '/');
  } catch {
    return usage(`--url is not a URL: ${JSON.stringify(values.url)}`);
  }
  const token = values.token ?? (process.env.CONTEXT_HEALTH_TOKEN || null);

  let input: Awaited<ReturnType<typeof openInput>>;
  try {
    input = await openInput(file);
  } catch (e) {
    process.stderr.write(`context-health replay: cannot read ${file}: ${(e as Error).message}\n`);
    return 2;
  }

  // a clear answer before sending anything: is a relay there at all?
  const problem = await probeRelay(base);
  if (problem !== null) {
    process.stderr.write(`context-health replay: cannot reach the relay at ${base.href}: ${problem}. Start one with: context-health serve\n`);
    return 2;
  }

  const client = new HarnessClient({ url: base.href, token, maxInFlight: 64, giveUpAfterMs: 30_000 });
  const progress = new Progress(input.bytesTotal, speed);
  const rejected: Rejected[] = [];
  const sessions = new Map<string, string>();
  const acked = { stored: 0, duplicate: 0, turns: 0, firstTurn: null as number | null, lastTurn: null as number | null };
  const inFlight: Promise<void>[] = [];
  let unavailable: Error | null = null;
  let lastTs: number | null = null;
  let nextAt = performance.now();

  const track = (line: number, p: Promise<Ack>): void => {
    inFlight.push(
      p.then(
        (ack) => {
          if (ack.duplicate) acked.duplicate++;
          else acked.stored++;
          if (ack.turn !== null) {
            acked.turns++;
            acked.firstTurn ??= ack.turn;
            acked.lastTurn = ack.turn;
          }
          progress.acked++;
        },
        (e: unknown) => {
          if (e instanceof RelayRejected) rejected.push({ line, message: e.reason });
          else unavailable ??= e as Error;
        },
      ),
    );
  };

  const lines: { text: string | { error: string }; line: number }[] = [];
  const reader = new TranscriptReader(
    (text, line) => lines.push({ text, line }),
    (line, message) => rejected.push({ line, message }),
    nodeDecoder,
  );

  // bytes of input before the lines being sent, to place each line's progress within its chunk
  let bytesBefore = 0;
  const sendLines = async (): Promise<void> => {
    const batch = lines.splice(0);
    const bytesAfter = input.bytesRead();
    for (let i = 0; i < batch.length; i++) {
      const { text, line } = batch[i]!;
      const position = bytesBefore + ((i + 1) / batch.length) * (bytesAfter - bytesBefore);
      if (unavailable !== null) return;
      if (typeof text !== 'string') {
        rejected.push({ line, message: text.error });
        continue;
      }
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined; // sent as is: the relay names the reason
      }
      const message = value as { type?: unknown; session_id?: unknown; ts?: unknown } | undefined;
      let out = text;
      if (renameTo !== null && typeof message === 'object' && message !== null && typeof message.session_id === 'string') {
        let id = sessions.get(message.session_id);
        if (id === undefined) sessions.set(message.session_id, (id = sessions.size === 0 ? renameTo : `${renameTo}/${message.session_id}`));
        out = JSON.stringify({ ...message, session_id: id });
      } else if (typeof message?.session_id === 'string' && !sessions.has(message.session_id)) {
        sessions.set(message.session_id, message.session_id);
      }
      if (speed > 0 && message?.type === 'snapshot') {
        // pace by the transcript's own clock
        const ts = typeof message.ts === 'string' ? Date.parse(message.ts) : Number.NaN;
        const gap = Number.isNaN(ts) || lastTs === null ? (lastTs === null && !Number.isNaN(ts) ? 0 : DEFAULT_TURN_MS) : ts - lastTs;
        if (!Number.isNaN(ts)) lastTs = ts;
        nextAt += Math.min(maxGapMs, Math.max(0, gap) / speed);
        const wait = nextAt - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else if (wait < -maxGapMs) nextAt = performance.now(); // fell behind: do not rush to catch up
      }
      track(line, client.send(out));
      if (message?.type === 'snapshot') progress.turns++;
      progress.show(position);
      while (inFlight.length >= WINDOW) await inFlight.shift();
    }
    bytesBefore = bytesAfter;
  };

  try {
    for await (const chunk of input.stream) {
      reader.push(chunk);
      await sendLines();
      if (unavailable !== null) break;
    }
    if (unavailable === null) {
      reader.end();
      await sendLines();
    }
  } catch (e) {
    process.stderr.write(`\ncontext-health replay: cannot read ${file}: ${(e as Error).message}\n`);
    await client.close(0);
    return 2;
  }
  await Promise.all(inFlight);
  await client.close();
  progress.show(input.bytesRead(), true);
  progress.done();

  rejected.sort((a, b) => a.line - b.line);
  for (const r of rejected.slice(0, SHOWN_ERRORS)) process.stderr.write(`line ${r.line}: ${r.message}\n`);
  if (rejected.length > SHOWN_ERRORS) process.stderr.write(`… and ${rejected.length - SHOWN_ERRORS} more rejected lines\n`);
  if (unavailable !== null) {
    process.stderr.write(`context-health replay: ${(unavailable as Error).message}\n`);
  }
  const ids = [...new Set(sessions.values())];
  if (ids.length === 0 && rejected.length === 0 && unavailable === null) {
    process.stderr.write(`context-health replay: ${file === '-' ? 'stdin' : file} holds no messages\n`);
    return 2;
  }
  const turns = acked.firstTurn === null ? 'no turns' : `${acked.turns} turns, ${acked.firstTurn}–${acked.lastTurn}`;
  process.stdout.write(
    `replayed ${file} into ${base.href} as ${ids.length === 1 ? `session ${JSON.stringify(ids[0])}` : `${ids.length} sessions (${ids.map((i) => JSON.stringify(i)).join(', ')})`}: ` +
      `${acked.stored} messages stored (${turns}), ${acked.duplicate} already there, ${rejected.length} rejected\n`,
  );
  if (acked.duplicate > 0 && acked.stored === 0 && renameTo === null) {
    process.stdout.write(`the relay already held every message of this transcript; to watch it again live, replay it under a new id: --session ${ids[0] ?? 'NAME'}-2\n`);
  } else if (rejected.some((r) => /does not increase|must come before/.test(r.message)) && renameTo === null) {
    process.stdout.write(`some turns clash with a session the relay already holds; replay under a new id with --session NAME\n`);
  }
  if (unavailable !== null) return 2;
  return rejected.length > 0 ? 1 : 0;
}

/** null when a relay answers /api/health, else why not (node:http: fetch refuses some ports). */
function probeRelay(base: URL): Promise<string | null> {
  return new Promise((resolve) => {
    const get = base.protocol === 'https:' ? https.get : http.get;
    const req = get(new URL('api/health', base), { timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? null : `it answered ${res.statusCode ?? '?'} to /api/health (is that a context-health relay?)`);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'connection refused' : e.message));
  });
}

async function openInput(file: string): Promise<{ stream: AsyncIterable<Buffer>; bytesTotal: number | null; bytesRead: () => number }> {
  let bytesTotal: number | null = null;
  let raw: Readable;
  if (file === '-') raw = process.stdin;
  else {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) throw new Error('not a file');
    bytesTotal = stat.size;
    raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  }
  const counter = { n: 0 };
  return { stream: unwrapGzip(raw, counter), bytesTotal, bytesRead: () => counter.n };
}

/** The raw bytes, or their gunzipped form when the first bytes say gzip (SPEC §2 .jsonl.gz). */
async function* unwrapGzip(raw: Readable, counter: { n: number }): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  if (first.done === true) return;
  counter.n += first.value.length;
  if (!isGzip(first.value)) {
    yield first.value;
    for (let r = await it.next(); r.done !== true; r = await it.next()) {
      counter.n += r.value.length;
      yield r.value;
    }
    return;
  }
  const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 });
  void (async () => {
    try {
      if (!gunzip.write(first.value)) await new Promise((r) => gunzip.once('drain', r));
      for (let r = await it.next(); r.done !== true; r = await it.next()) {
        counter.n += r.value.length;
        if (!gunzip.write(r.value)) await new Promise((res) => gunzip.once('drain', res));
      }
      gunzip.end();
    } catch (e) {
      gunzip.destroy(e as Error);
    }
  })();
  for await (const c of gunzip) yield c as Buffer;
}

/** One line on stderr, redrawn in place on a terminal, now and then otherwise. */
class Progress {
  turns = 0;
  acked = 0;
  private lastShown = Date.now();
  private drawn = false;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly bytesTotal: number | null,
    private readonly speed: number,
  ) {}

  show(bytesRead: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.lastShown < (this.tty ? 100 : 2000)) return;
    this.lastShown = now;
    const mb = (n: number): string => (n / 1e6).toFixed(1);
    const of = this.bytesTotal === null ? `${mb(bytesRead)} MB read` : `${mb(bytesRead)} of ${mb(this.bytesTotal)} MB (${this.bytesTotal === 0 ? 100 : Math.floor((100 * bytesRead) / this.bytesTotal)}%)`;
    const text = `replay: ${this.turns} turns sent, ${this.acked} messages acknowledged · ${of} · speed ${this.speed === 0 ? 'max' : `×${this.speed}`}`;
    process.stderr.write(this.tty ? `\r\x1b[2K${text}` : `${text}\n`);
    this.drawn = true;
  }

  done(): void {
    if (this.tty && this.drawn) process.stderr.write('\n');
  }
}

