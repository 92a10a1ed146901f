// `context-health replay <file>` (contract §6): streams a saved transcript into a running
// relay as a live session, paced by the snapshots' `ts` (scaled by --speed), through the
// same harness client a TypeScript harness uses. The file is read in pieces, never whole
// (replayInput.ts); pacing and renaming are replayPacing.ts, the progress line
// replayProgress.ts; this module parses the options, sends, and sums up.
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';
import { HarnessClient, RelayRejected, type Ack } from '../client/harness.ts';
import { TranscriptReader } from '../ingest/transcript.ts';
import { nodeDecoder } from '../node/platform.ts';
import { openInput, type ReplayInput } from './replayInput.ts';
import { Pacer, SessionRenamer } from './replayPacing.ts';
import { Progress } from './replayProgress.ts';
import { declaresCompact, TextCarry } from '../core/compact.ts';
import { errorLine, escapeLines } from '../core/terminalText.ts';
import { relayBase } from './relayUrl.ts';

export const REPLAY_USAGE = `usage: context-health replay <file> [options]
  <file>             a transcript: .jsonl, .jsonl.gz or .json (or - for stdin)
  --url URL          the relay (default http://127.0.0.1:8787)
  --speed X          X times the original pace, from the snapshots' ts (default 1);
                     0 or max = as fast as the relay acknowledges
  --max-gap S        wait at most S seconds between two turns, however far apart their ts (default 10)
  --session ID       replay under this session id (a second session in the file becomes ID/<its id>)
  --token T          the relay's ingest token (or env CONTEXT_HEALTH_TOKEN)
  --expand           send every snapshot whole (contract version 1, for a relay older than 1.1);
                     by default a session that declares the compact wire is sent compact`;

/** messages handed to the client and not yet acknowledged */
const WINDOW = 256;
const SHOWN_ERRORS = 50;

interface ReplayOptions {
  file: string;
  base: URL;
  speed: number;
  maxGapMs: number;
  renameTo: string | null;
  token: string | null;
  /** contract §7: send version 1 (whole snapshots, no `wire` in headers) */
  expand: boolean;
}

interface Rejected {
  line: number;
  message: string;
}

/** What the relay answered, message by message. */
class Tally {
  stored = 0;
  duplicate = 0;
  turns = 0;
  firstTurn: number | null = null;
  lastTurn: number | null = null;
  readonly rejected: Rejected[] = [];
  /** why the relay could not be reached, once it could not */
  unavailable: Error | null = null;

  acked(ack: Ack): void {
    if (ack.duplicate) this.duplicate++;
    else this.stored++;
    if (ack.turn !== null) {
      this.turns++;
      this.firstTurn ??= ack.turn;
      this.lastTurn = ack.turn;
    }
  }

  failed(line: number, e: unknown): void {
    if (e instanceof RelayRejected) this.rejected.push({ line, message: e.reason });
    else this.unavailable ??= e as Error;
  }
}

export async function runReplay(args: string[]): Promise<number> {
  const parsed = parseReplayArgs(args);
  if (parsed === 'help') {
    process.stdout.write(REPLAY_USAGE + '\n');
    return 0;
  }
  if (typeof parsed === 'string') {
    say(process.stderr, `context-health replay: ${parsed}\n${REPLAY_USAGE}\n`);
    return 2;
  }
  const { file, base } = parsed;

  let input: ReplayInput;
  try {
    input = await openInput(file);
  } catch (e) {
    process.stderr.write(errorLine(`context-health replay: cannot read ${file}: ${(e as Error).message}`));
    return 2;
  }

  // a clear answer before sending anything: is a relay there at all?
  const problem = await probeRelay(base);
  if (problem !== null) {
    say(process.stderr, `context-health replay: cannot reach the relay at ${base.href}: ${problem}. Start one with: context-health serve\n`);
    return 2;
  }

  const tally = new Tally();
  const renamer = new SessionRenamer(parsed.renameTo);
  const progress = new Progress(input.bytesTotal, parsed.speed);
  const client = new HarnessClient({ url: base.href, token: parsed.token, maxInFlight: 64, giveUpAfterMs: 30_000, compact: !parsed.expand });
  try {
    await streamTranscript(input, client, new Pacer(parsed.speed, parsed.maxGapMs), renamer, tally, progress, parsed.expand);
  } catch (e) {
    process.stderr.write(`\n${errorLine(`context-health replay: cannot read ${file}: ${(e as Error).message}`)}`);
    await client.close(0);
    return 2;
  }
  await client.close();
  progress.show(input.bytesRead(), true);
  progress.done();
  return summarise(parsed, tally, renamer.written());
}

function parseReplayArgs(args: string[]): ReplayOptions | 'help' | string {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8787' },
      speed: { type: 'string', default: '1' },
      'max-gap': { type: 'string', default: '10' },
      session: { type: 'string' },
      token: { type: 'string' },
      expand: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (positionals.length !== 1) return 'replay takes exactly one file (or - for stdin)';
  const speed = values.speed === 'max' ? 0 : Number(values.speed);
  if (!Number.isFinite(speed) || speed < 0) return `--speed must be a number ≥ 0 or "max", got ${JSON.stringify(values.speed)}`;
  const maxGapMs = Number(values['max-gap']) * 1000;
  if (!Number.isFinite(maxGapMs) || maxGapMs < 0) return `--max-gap must be a number of seconds ≥ 0, got ${JSON.stringify(values['max-gap'])}`;
  const renameTo = values.session ?? null;
  if (renameTo === '') return '--session must not be empty';
  const base = relayBase(values.url);
  if (!(base instanceof URL)) return base.error;
  const token = values.token ?? (process.env.CONTEXT_HEALTH_TOKEN || null);
  return { file: positionals[0]!, base, speed, maxGapMs, renameTo, token, expand: values.expand };
}

/** Reads the transcript line by line and sends each message, paced, at most WINDOW unacknowledged. */
async function streamTranscript(
  input: ReplayInput,
  client: HarnessClient,
  pacer: Pacer,
  renamer: SessionRenamer,
  tally: Tally,
  progress: Progress,
  expand: boolean,
): Promise<void> {
  // contract §7: a compact transcript (a relay's log) is read whole, the way check reads it;
  // the client leaves texts out again for a session that declares the compact wire
  const carry = new TextCarry();
  const inFlight: Promise<void>[] = [];
  const lines: { text: string | { error: string }; line: number }[] = [];
  const reader = new TranscriptReader(
    (text, line) => lines.push({ text, line }),
    (line, message) => tally.rejected.push({ line, message }),
    nodeDecoder,
  );
  // bytes of input before the lines being sent, to place each line's progress within its chunk
  let bytesBefore = 0;
  const sendLines = async (): Promise<void> => {
    const batch = lines.splice(0);
    const bytesAfter = input.bytesRead();
    for (let i = 0; i < batch.length; i++) {
      const { text, line } = batch[i]!;
      if (tally.unavailable !== null) return;
      if (typeof text !== 'string') {
        tally.rejected.push({ line, message: text.error });
        continue;
      }
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined; // sent as is: the relay names the reason
      }
      let whole = text;
      const expanded = wholeMessage(carry, value, expand);
      if (expanded !== value) {
        value = expanded;
        whole = JSON.stringify(expanded);
      }
      const message = value as { type?: unknown; session_id?: unknown; ts?: unknown } | undefined;
      const out = renamer.lineFor(whole, message);
      if (message?.type === 'snapshot') await pacer.beforeSnapshot(message.ts);
      inFlight.push(
        client.send(out).then(
          (ack) => {
            tally.acked(ack);
            progress.acked++;
          },
          (e: unknown) => tally.failed(line, e),
        ),
      );
      if (message?.type === 'snapshot') progress.turns++;
      progress.show(bytesBefore + ((i + 1) / batch.length) * (bytesAfter - bytesBefore));
      while (inFlight.length >= WINDOW) await inFlight.shift();
    }
    bytesBefore = bytesAfter;
  };
  for await (const chunk of input.stream) {
    reader.push(chunk);
    await sendLines();
    if (tally.unavailable !== null) break;
  }
  if (tally.unavailable === null) {
    reader.end();
    await sendLines();
  }
  await Promise.all(inFlight);
}

/** The message with left-out texts carried in; with `expand`, a header without its `wire` declaration too. */
function wholeMessage(carry: TextCarry, value: unknown, expand: boolean): unknown {
  const out = carry.expand(value);
  if (!expand || !declaresCompact(out)) return out;
  const { wire: _wire, ...header } = out as { wire?: unknown };
  return header;
}

/** Prints the rejected lines and the summary; returns the exit status. */
function summarise(options: ReplayOptions, tally: Tally, ids: string[]): number {
  const { file, base, renameTo } = options;
  const rejected = tally.rejected.sort((a, b) => a.line - b.line);
  for (const r of rejected.slice(0, SHOWN_ERRORS)) say(process.stderr, `line ${r.line}: ${r.message}\n`);
  if (rejected.length > SHOWN_ERRORS) say(process.stderr, `… and ${rejected.length - SHOWN_ERRORS} more rejected lines\n`);
  if (tally.unavailable !== null) say(process.stderr, `context-health replay: ${tally.unavailable.message}\n`);
  if (ids.length === 0 && rejected.length === 0 && tally.unavailable === null) {
    say(process.stderr, `context-health replay: ${file === '-' ? 'stdin' : file} holds no messages\n`);
    return 2;
  }
  const turns = tally.firstTurn === null ? 'no turns' : `${tally.turns} turns, ${tally.firstTurn}–${tally.lastTurn}`;
  say(
    process.stdout,
    `replayed ${file} into ${base.href} as ${ids.length === 1 ? `session ${JSON.stringify(ids[0])}` : `${ids.length} sessions (${ids.map((i) => JSON.stringify(i)).join(', ')})`}: ` +
      `${tally.stored} messages stored (${turns}), ${tally.duplicate} already there, ${rejected.length} rejected\n`,
  );
  if (tally.duplicate > 0 && tally.stored === 0 && renameTo === null) {
    say(
      process.stdout,
      `the relay already held every message of this transcript; to watch it again live, replay it under a new id: --session ${ids[0] ?? 'NAME'}-2\n`,
    );
  } else if (rejected.some((r) => /does not increase|must come before/.test(r.message)) && renameTo === null) {
    say(process.stdout, `some turns clash with a session the relay already holds; replay under a new id with --session NAME\n`);
  }
  if (tally.unavailable !== null) return 2;
  return rejected.length > 0 ? 1 : 0;
}

/** null when a relay answers /api/health, else why not (node:http: fetch refuses some ports). */
function probeRelay(base: URL): Promise<string | null> {
  return new Promise((resolve) => {
    const get = base.protocol === 'https:' ? https.get : http.get;
    const req = get(new URL('api/health', base), { timeout: 5000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve(null);
      else if (res.statusCode === 503) resolve('it answered 503 to /api/health: the relay cannot store messages now (see GET /api/health for why)');
      else resolve(`it answered ${res.statusCode ?? '?'} to /api/health (is that a context-health relay?)`);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'connection refused' : e.message));
  });
}

/** Every line replay prints holds names and messages from the file or the relay: escaped (terminalText.ts). */
function say(stream: NodeJS.WriteStream, text: string): void {
  stream.write(escapeLines(text));
}
