// docs/hooks.md "Never in the way": the hook's read and audit of the transcript run in a
// process of their own, which the hook kills when its time budget runs out. A deadline
// checked between lines cannot stop one huge line's JSON.parse, the audit after the last
// line, or a read stuck on a slow file system; a worker thread cannot be stopped either
// while it is inside JSON.parse (terminate() waited 16 s for a loop of 14 MB parses here,
// and process.exit waits for it). A killed process always stops.
//
// The protocol: one JSON line on stdin (ChildRequest), one JSON document on stdout
// (ChildReply). Nothing else is written; a failure is a reply too.
import type { AdaptedMessage } from '../../ingest/adapters/claudeCode.ts';
import { auditTranscript } from './auditTranscript.ts';
import { shownPath } from './boundedRead.ts';
import { handbackOf } from './handbackOf.ts';

export interface ChildRequest {
  transcript: string;
  sessionId: string;
  /** the hand-back's budget in tokens (--budget) */
  budget: number;
  /** keep the wire messages, for the relay (--url) */
  keep: boolean;
  /** Date.now() past which the audit stops and says so itself (the hook kills it a little later) */
  deadline: number;
}

export interface ChildReply {
  /** the hook output to print on stdout, or null */
  output: string | null;
  /** the one line for stderr, or null */
  warning: string | null;
  /** the session's messages through the compaction, for the relay (keep only) */
  messages: AdaptedMessage[] | null;
}

/** The audit and its hand-back, as the hook prints them. */
export function auditReply(request: ChildRequest): ChildReply {
  // the reader's deadline is on performance.now()'s clock
  const deadline = performance.now() + (request.deadline - Date.now());
  const audit = auditTranscript(request.transcript, request.sessionId, { deadline, keep: request.keep });
  if ('error' in audit) return { output: null, warning: audit.error, messages: null };
  if (audit.compaction === null) return { output: null, warning: `${shownPath(request.transcript)} holds no compaction to audit`, messages: null };
  const handback = handbackOf(audit.compaction, request.transcript, request.budget, audit.whole);
  const messages = request.keep ? audit.finder.messages : null;
  if (handback.text === '') return { output: null, warning: `--budget ${request.budget} is too small to hand anything back`, messages };
  const output = JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: handback.text } }) + '\n';
  return { output, warning: null, messages };
}

/** The child's main: the request on stdin, the reply on stdout. */
export async function auditChildMain(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  let reply: ChildReply;
  try {
    reply = auditReply(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChildRequest);
  } catch (e) {
    reply = { output: null, warning: `the audit failed: ${(e as Error).message}`, messages: null };
  }
  await new Promise<void>((resolve, reject) => process.stdout.write(JSON.stringify(reply), (e) => (e ? reject(e) : resolve())));
}
