// The hook's and the status line's own way in (bin/context-health.mjs takes it for `hook` and
// `statusline`): they run on every compaction and every status refresh, so they load only
// their own modules, not every command's (docs/hooks.md "What it costs").
import { escapeLines } from '../../core/terminalText.ts';
import { HookUsage, runHook } from './command.ts';

export async function hookMain(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'statusline') {
    const { runStatusline } = await import('./statusline.ts');
    return runStatusline();
  }
  try {
    return await runHook(rest);
  } catch (e) {
    if (e instanceof HookUsage || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(escapeLines(`context-health: ${(e as Error).message}\n(context-health hook --help)\n`));
      return 2;
    }
    throw e;
  }
}
