// `context-health check | serve | replay` (SPEC §6).
import { parseArgs } from 'node:util';
import { parseThresholdSetting, type Thresholds } from '../core/config.ts';
import { reachesFailLevel } from '../core/report.ts';
import { adapterJson, adapterNote, parseFrom } from './adapterNote.ts';
import { checkTranscript } from './check.ts';
import { humanReport } from './humanReport.ts';
import { writeAll } from './output.ts';

const USAGE = `usage:
  context-health check <file|-> [--json] [--fail-on fault|warning|never] [--set key=value]...
                 [--from auto|claude-code|swe-agent|wire] [--scorer auto|harness|reference|both]
  context-health serve [--port N] [--host H] [--data DIR] [--token T] [--demo]
  context-health replay <file> [--url URL] [--speed X] [--session ID] [--token T]
  context-health watch <file-or-folder>... [--url URL] [--state FILE] [--poll MS] [--token T]`;

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check':
        return await runCheck(rest);
      case 'serve': {
        const { runServe } = await import('./serve.ts');
        return await runServe(rest);
      }
      case 'watch': {
        const { runWatch } = await import('./watch.ts');
        return await runWatch(rest);
      }
      case 'replay': {
        const { runReplay } = await import('./replay.ts');
        return await runReplay(rest);
      }
      case '--help':
      case '-h':
      case 'help':
        await writeAll(process.stdout, USAGE + '\n');
        return 0;
      default:
        throw new UsageError(command === undefined ? 'no command given' : `unknown command ${JSON.stringify(command)}`);
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`context-health: ${(e as Error).message}\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }
}

async function runCheck(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'fail-on': { type: 'string', default: 'fault' },
      set: { type: 'string', multiple: true, default: [] },
      from: { type: 'string' },
      scorer: { type: 'string', default: 'auto' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('check takes exactly one file (or - for stdin)');
  const failOn = values['fail-on'];
  if (failOn !== 'fault' && failOn !== 'warning' && failOn !== 'never') {
    throw new UsageError(`--fail-on must be fault, warning or never, got ${JSON.stringify(failOn)}`);
  }
  const userThresholds: Partial<Thresholds> = {};
  for (const setting of values.set) {
    const parsed = parseThresholdSetting(setting);
    if ('error' in parsed) throw new UsageError(parsed.error);
    userThresholds[parsed.key] = parsed.value;
  }
  const from = parseFrom(values.from);
  if (typeof from === 'object') throw new UsageError(from.error);
  const scorer = values.scorer;
  if (scorer !== 'auto' && scorer !== 'harness' && scorer !== 'reference' && scorer !== 'both') {
    throw new UsageError(`--scorer must be auto, harness, reference or both, got ${JSON.stringify(scorer)}`);
  }
  const path = positionals[0]!;
  let result;
  try {
    result = await checkTranscript(path, { userThresholds, scorer, ...(from === undefined ? {} : { from }) });
  } catch (e) {
    process.stderr.write(`context-health: cannot read ${path === '-' ? 'stdin' : path}: ${(e as Error).message}\n`);
    return 2;
  }
  const report = result.report;
  const shown = values.json
    ? JSON.stringify({ ...report, ...adapterJson(result.adapter) }) + '\n'
    : humanReport(report, path === '-' ? 'stdin' : path, result.titles) + adapterNote(result.adapter);
  await writeAll(process.stdout, shown);
  const snapshots = report.sessions.reduce((n, s) => n + s.turns, 0);
  if (snapshots === 0) {
    process.stderr.write(`context-health: ${path === '-' ? 'stdin' : path} holds no valid snapshot (${report.input_errors.length} input errors)\n`);
    return 2;
  }
  return reachesFailLevel(report, failOn) ? 1 : 0;
}
