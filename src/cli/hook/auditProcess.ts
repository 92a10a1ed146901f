// docs/hooks.md "Never in the way": the audit run in its own process (auditChild.ts), and
// killed when the hook's time budget runs out, so the hook answers within the budget
// whatever the transcript holds or the file system does.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest } from './auditChild.ts';
import { shownPath } from './boundedRead.ts';

/** What the child is left for its answer to reach the hook before it is killed: its own deadline is this much earlier. */
const REPLY_MARGIN_MS = 150;

/** The audit process's entry: the bundle beside this module in the package, the TypeScript source through tsx in a clone. */
function childArgs(): string[] {
  // tsx named by its own location: --import resolves a bare name from the working directory (the agent's project)
  if (import.meta.url.endsWith('.ts')) return ['--import', import.meta.resolve('tsx/esm'), fileURLToPath(new URL('./hookAudit.ts', import.meta.url))];
  return [fileURLToPath(new URL('./hookAudit.mjs', import.meta.url))];
}

/**
 * The child's reply, or the hook's own when the budget ran out (the child killed) or the
 * child failed. Resolves by `timeMs` from now (plus the kill's own few milliseconds);
 * `budgetMs` is the whole budget, as the message names it.
 */
export function auditInProcess(request: Omit<ChildRequest, 'deadline'>, timeMs: number, budgetMs: number): Promise<ChildReply> {
  return new Promise((resolve) => {
    const nothing = (warning: string): ChildReply => ({ output: null, warning, messages: null });
    let settled = false;
    const settle = (reply: ChildReply): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const child = spawn(process.execPath, childArgs(), { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const timer = setTimeout(
      () => {
        child.kill('SIGKILL');
        settle(nothing(`the time budget of ${budgetMs} ms ran out before the audit of ${shownPath(request.transcript)} was done: nothing handed back`));
      },
      Math.max(0, timeMs),
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => undefined); // a child that died before reading
    child.on('error', (e) => settle(nothing(`the audit could not start: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const first =
          Buffer.concat(err)
            .toString('utf8')
            .trim()
            .split('\n')
            .find((l) => l.trim() !== '') ?? '';
        return settle(nothing(`the audit failed (${signal ?? `exit ${code}`})${first === '' ? '' : `: ${first.slice(0, 200)}`}`));
      }
      try {
        settle(JSON.parse(Buffer.concat(out).toString('utf8')) as ChildReply);
      } catch (e) {
        settle(nothing(`the audit's answer was not read: ${(e as Error).message}`));
      }
    });
    const full: ChildRequest = { ...request, deadline: Date.now() + Math.max(1, timeMs - REPLY_MARGIN_MS) };
    child.stdin.end(JSON.stringify(full));
  });
}
