// `context-health hook …` (docs/hooks.md): the hook itself, or its install and uninstall.
import { parseArgs } from 'node:util';
import { writeAll } from '../output.ts';
import { hookOptions, runHookEvent } from './hook.ts';
import { defaultCommand, runInstall, settingsPath } from './install.ts';

export const HOOK_HELP = `usage: context-health hook [--budget N] [--time-budget MS] [--url URL] [--token T]
       context-health hook install [--project | --user | --settings FILE] [--budget N] [--url URL] [--command CMD]
       context-health hook uninstall [--project | --user | --settings FILE]

hook: Claude Code's SessionStart hook. Reads the hook event (JSON) on stdin; on source
"compact" it audits the compaction just made and prints the hook output whose
additionalContext hands back what the summary lost: the user's prompts it does not hold
word for word, the pending todos, the files it does not name. Any other event prints
nothing. Always exits 0; a problem is one line on stderr (docs/hooks.md).

  --budget N       the most tokens handed back (contract §2.3 estimate; default 2000)
  --time-budget MS the longest the hook takes, in milliseconds (100 to 600000; default
                   4000): past it the audit is stopped and nothing is handed back
  --url URL        also send the session, through the compaction, to this relay
  --token T        the relay's token (default: CONTEXT_HEALTH_TOKEN)

install / uninstall: add the hook to, or take it out of, Claude Code's settings:
  --project        ./.claude/settings.json (default)
  --user           ~/.claude/settings.json
  --settings FILE  this settings file
  --command CMD    the command Claude Code runs (default: this executable's hook, with
                   --budget and --url as given)
Every other byte of the file stays as it was; a second install changes nothing; a file that
is not valid JSON, or is read-only, is left untouched (exit 1). Codex: see docs/hooks.md.
`;

export class HookUsage extends Error {}

export async function runHook(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === 'install' || first === 'uninstall') return runInstallCommand(first, rest);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      budget: { type: 'string' },
      'time-budget': { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return (await writeAll(process.stdout, HOOK_HELP), 0);
  if (positionals.length > 0) throw new HookUsage(`hook takes no file (the event comes on stdin), got ${JSON.stringify(positionals[0])}`);
  const options = hookOptions(values);
  if ('error' in options) throw new HookUsage(options.error);
  return runHookEvent({ ...options, token: options.token ?? (process.env.CONTEXT_HEALTH_TOKEN || null) });
}

async function runInstallCommand(action: 'install' | 'uninstall', args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      project: { type: 'boolean', default: false },
      user: { type: 'boolean', default: false },
      settings: { type: 'string' },
      command: { type: 'string' },
      budget: { type: 'string' },
      url: { type: 'string' },
      codex: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return (await writeAll(process.stdout, HOOK_HELP), 0);
  if (values.codex) {
    throw new HookUsage('Codex is not supported: the codex-rs source read has no SessionStart hook with source "compact" (docs/hooks.md, "Codex")');
  }
  if ([values.project, values.user, values.settings !== undefined].filter(Boolean).length > 1)
    throw new HookUsage('give one of --project, --user or --settings');
  const options = hookOptions(values);
  if ('error' in options) throw new HookUsage(options.error);
  if (action === 'uninstall' && (values.command !== undefined || values.budget !== undefined || values.url !== undefined)) {
    throw new HookUsage('uninstall takes only --project, --user or --settings: it removes every entry install made');
  }
  const extra = [...(values.budget === undefined ? [] : ['--budget', String(options.budget)]), ...(options.url === null ? [] : ['--url', options.url])];
  const settings = values.settings ?? settingsPath(values.user ? 'user' : 'project');
  const lines: string[] = [];
  const errors: string[] = [];
  const code = runInstall(
    action,
    { settings, command: values.command ?? defaultCommand(extra) },
    (l) => lines.push(l),
    (l) => errors.push(l),
  );
  if (lines.length > 0) await writeAll(process.stdout, lines.join('\n') + '\n');
  if (errors.length > 0) process.stderr.write(errors.join('\n') + '\n');
  return code;
}
