// `context-health hook [--budget N] [--url URL] [--token T]`: Claude Code's SessionStart hook
// (docs/hooks.md). On source `compact` it audits the compaction just made and prints, as
// the hook output Claude Code reads, what the summary lost, within the budget. Anything else
// prints nothing. It never blocks or breaks the agent: every failure is one line on stderr
// and exit 0.
import { DEFAULT_HANDBACK_BUDGET } from '../../core/handback.ts';
import { escapeLines } from '../../core/terminalText.ts';
import { isObject } from '../../ingest/adapters/json.ts';
import { relayBase } from '../relayUrl.ts';
import { writeAll } from '../output.ts';
import { HOOK_TIME_BUDGET_MS } from './auditTranscript.ts';
import { auditInProcess } from './auditProcess.ts';
import { readStdin } from './boundedRead.ts';

/** docs/hooks.md: an event is a few hundred bytes; more than this is not one. */
const MAX_EVENT_BYTES = 1024 * 1024;
const STDIN_TIMEOUT_MS = 3000;

export interface HookOptions {
  budget: number;
  /** --time-budget: the milliseconds the hook takes at most, from the event read to its answer */
  timeBudget: number;
  url: string | null;
  token: string | null;
}

/** The options, or why they are wrong (a usage error: the one case that exits 2, at install time, not in the agent). */
export function hookOptions(values: {
  budget?: string | undefined;
  url?: string | undefined;
  token?: string | undefined;
  'time-budget'?: string | undefined;
}): HookOptions | { error: string } {
  const budget = values.budget === undefined ? DEFAULT_HANDBACK_BUDGET : Number(values.budget);
  if (!Number.isInteger(budget) || budget < 1) return { error: `--budget expects a whole number of tokens above 0, got ${JSON.stringify(values.budget)}` };
  const time = values['time-budget'];
  const timeBudget = time === undefined ? HOOK_TIME_BUDGET_MS : /^\d{1,7}$/.test(time) ? Number(time) : NaN;
  if (!(timeBudget >= 100 && timeBudget <= 600_000))
    return { error: `--time-budget expects a whole number of milliseconds from 100 to 600000, got ${JSON.stringify(time)}` };
  let url: string | null = null;
  if (values.url !== undefined) {
    const base = relayBase(values.url);
    if ('error' in base) return base;
    url = base.toString();
  }
  return { budget, timeBudget, url, token: values.token ?? null };
}

const warn = (message: string): void => {
  process.stderr.write(escapeLines(`context-health hook: ${message}\n`));
};

/** Runs the hook on the event read from stdin; always 0. */
export async function runHookEvent(options: HookOptions): Promise<number> {
  try {
    const started = performance.now();
    const raw = await readStdin(MAX_EVENT_BYTES, STDIN_TIMEOUT_MS);
    if (typeof raw !== 'string') return (warn(raw.error), 0);
    let event: unknown;
    try {
      event = JSON.parse(raw);
    } catch (e) {
      return (warn(`the event on stdin is not JSON (${(e as Error).message})`), 0);
    }
    if (!isObject(event) || typeof event.hook_event_name !== 'string') return (warn('the event on stdin is not a hook event (no hook_event_name)'), 0);
    // docs/hooks.md: only a compaction's SessionStart has anything to hand back
    if (event.hook_event_name !== 'SessionStart' || event.source !== 'compact') return 0;
    const transcript = event.transcript_path;
    if (typeof transcript !== 'string' || transcript === '') return (warn('the SessionStart event names no transcript_path'), 0);
    const sessionId = typeof event.session_id === 'string' && event.session_id !== '' ? event.session_id : 'claude-code';
    // docs/hooks.md: a hard limit: the audit runs in a process of its own, killed when the budget runs out
    const request = { transcript, sessionId, budget: options.budget, keep: options.url !== null };
    const audit = await auditInProcess(request, started + options.timeBudget - performance.now(), options.timeBudget);
    if (audit.warning !== null) warn(audit.warning);
    if (audit.output !== null) await writeAll(process.stdout, audit.output);
    if (options.url !== null && audit.messages !== null) {
      // loaded only here: the relay client (ws, zod) is most of the hook's start-up otherwise
      const { sendToRelay, RELAY_TIMEOUT_MS } = await import('./relaySend.ts');
      // the budget holds for the relay too: what is left of it, up to the relay's own limit
      const left = Math.min(RELAY_TIMEOUT_MS, Math.floor(started + options.timeBudget - performance.now()));
      const failed =
        left <= 0
          ? `the time budget of ${options.timeBudget} ms was used up: the session was not sent to the relay`
          : await sendToRelay(options.url, options.token, audit.messages, left);
      if (failed !== null) warn(failed);
    }
    return 0;
  } catch (e) {
    warn(`the audit failed: ${(e as Error).message}`);
    return 0;
  }
}
