// `context-health report <file>`: the incident report of the dashboard, headless, for CI
// jobs (issue "Incident reports", item 4). The file is read exactly as `check` reads it
// (same adapters, thresholds, exit status); the report itself is drawn by the renderer
// (src/render), which runs the dashboard's own chart components under Node.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseThresholdSetting, type Thresholds } from '../core/config.ts';
import { reachesFailLevel } from '../core/checkOutput.ts';
import type { ReportDrawer, ReportJob, ReportRenderer } from '../report/renderer.ts';
import { capThreads, parseThreads, reportThreads } from './threads.ts';
import { STABLE_CONTRACT_URL } from '../report/markdown.ts';
import { noSnapshotSentence, parseFrom } from './adapterNote.ts';
import { checkTranscript, type CheckOptions } from './check.ts';
import { loadRenderer } from './rendererBundle.ts';
import { writeAll } from './output.ts';
import { ReportWriteError, writeReportFiles } from './reportFiles.ts';
import { errorLine, escapeLines } from '../core/terminalText.ts';
import { phase } from '../node/phases.ts';

export const REPORT_USAGE = `usage: context-health report <file> [--incident N | --compaction N | --turns A..B] [--session ID] [--out DIR] [--format md|html]
                 [--timestamp] [--fail-on fault|warning|never] [--set key=value]... [--from FORMAT] [--scorer WHICH] [--threads N]`;

const REPORT_HELP = `${REPORT_USAGE}

Writes the incident report of one session (docs/reports.md): what fired, severity, turns,
the spans named (ids, shortened texts, scores, bindings), the verdicts and what the harness
should do, the contract rule that fired, the thresholds in force, and the dashboard's
charts zoomed to the incident, each stamped (caption strip + JSON in the PNG's iTXt chunk
\`context-health\`). No browser is needed.

options:
  --incident N      the N-th incident of the session (by first turn, then contract §4 order,
                    as the dashboard's findings list and \`check\`'s runs); charts show its
                    turns ± a margin (as many turns as it lasted, at least 5)
  --compaction N    the N-th compaction of the session (contract §8.3, as \`check\` lists them):
                    the report of its turns ± 5, with its summary and audit (lost items first)
  --turns A..B      the turns A to B instead (default: the whole session)
  --session ID      which session of the file (default: the first with a snapshot)
  --out DIR         the folder to write into (default: context-health-report); made if missing
  --format md|html  md (default): report.md + images/*.png and *.svg; html: one self-contained
                    report.html (styles, data and charts inline, opens offline)
  --timestamp       stamp the time of export; without it the output is byte-for-byte the same
                    for the same input and options
  --threads N       threads in all, as for \`check\`; default: the cores less one, which the
                    drawing thread needs while the file is read
  --fail-on, --set, --from, --scorer   as for \`check\`

exit status: as \`check\`: 0 nothing reached --fail-on, 1 something did, 2 the input could not
be read, held no valid snapshot, or the session or incident does not exist (also for a usage error).
`;

class ReportUsage extends Error {}

/** the fonts the charts are rasterised with (assets/fonts/README.md) */
const FONTS = path.resolve(import.meta.dirname, '../../assets/fonts');

function parseTurns(text: string): { from: number; to: number } {
  const m = /^(\d+)\.\.(\d+)$/.exec(text.trim());
  if (m === null) throw new ReportUsage(`--turns expects A..B (two turn numbers), got ${JSON.stringify(text)}`);
  const from = Number(m[1]);
  const to = Number(m[2]);
  if (from > to) throw new ReportUsage(`--turns ${text}: the first turn must not be after the last`);
  return { from, to };
}

export async function runReport(args: string[]): Promise<number> {
  try {
    return await report(args);
  } catch (e) {
    if (e instanceof ReportUsage || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(escapeLines(`context-health report: ${(e as Error).message}\n${REPORT_USAGE}\n`));
      return 2;
    }
    throw e;
  }
}

async function report(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      incident: { type: 'string' },
      compaction: { type: 'string' },
      turns: { type: 'string' },
      session: { type: 'string' },
      out: { type: 'string', default: 'context-health-report' },
      format: { type: 'string', default: 'md' },
      timestamp: { type: 'boolean', default: false },
      'fail-on': { type: 'string', default: 'fault' },
      set: { type: 'string', multiple: true, default: [] },
      from: { type: 'string' },
      scorer: { type: 'string', default: 'auto' },
      threads: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    await writeAll(process.stdout, REPORT_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new ReportUsage('report takes exactly one file');
  const file = positionals[0]!;
  if (file === '-') throw new ReportUsage('report needs a file, not stdin: its sha256 is part of every stamp');
  if ([values.incident, values.turns, values.compaction].filter((v) => v !== undefined).length > 1) {
    throw new ReportUsage('give one of --incident, --compaction or --turns');
  }
  let scope: ReportJob['scope'] = { kind: 'session' };
  if (values.incident !== undefined) {
    const n = Number(values.incident);
    if (!Number.isInteger(n) || n < 1) throw new ReportUsage(`--incident expects a whole number ≥ 1, got ${JSON.stringify(values.incident)}`);
    scope = { kind: 'incident', number: n };
  } else if (values.turns !== undefined) scope = { kind: 'turns', ...parseTurns(values.turns) };
  let compaction: number | null = null;
  if (values.compaction !== undefined) {
    // digits only: Number() would take "0x2" as 2, "1e1" as 10 and " 2" or "2.0" as 2
    compaction = /^[1-9]\d*$/.test(values.compaction) ? Number(values.compaction) : Number.NaN;
    if (!Number.isSafeInteger(compaction)) throw new ReportUsage(`--compaction expects a whole number ≥ 1, got ${JSON.stringify(values.compaction)}`);
  }
  const format = values.format;
  if (format !== 'md' && format !== 'html') throw new ReportUsage(`--format must be md or html, got ${JSON.stringify(format)}`);
  const failOn = values['fail-on'];
  if (failOn !== 'fault' && failOn !== 'warning' && failOn !== 'never')
    throw new ReportUsage(`--fail-on must be fault, warning or never, got ${JSON.stringify(failOn)}`);
  const userThresholds: Partial<Thresholds> = {};
  for (const setting of values.set) {
    const parsed = parseThresholdSetting(setting);
    if ('error' in parsed) throw new ReportUsage(parsed.error);
    userThresholds[parsed.key] = parsed.value;
  }
  const from = parseFrom(values.from);
  if (typeof from === 'object') throw new ReportUsage(from.error);
  const scorer = values.scorer;
  if (scorer !== 'auto' && scorer !== 'harness' && scorer !== 'reference' && scorer !== 'both') {
    throw new ReportUsage(`--scorer must be auto, harness, reference or both, got ${JSON.stringify(scorer)}`);
  }
  const asked = values.threads === undefined ? reportThreads() : parseThreads(values.threads);
  if (typeof asked === 'object') throw new ReportUsage(asked.error);
  const threads = values.threads === undefined ? asked : capThreads(asked, (l) => process.stderr.write(`${l}\n`));
  let compactionTurn: number | undefined;
  if (compaction !== null) {
    // contract §8.3: the compaction's turn is known only once the file is read, so it is read once first
    const found = await findCompaction(file, compaction, values.session, { userThresholds, scorer, ...(from === undefined ? {} : { from }) });
    if (typeof found === 'string') {
      process.stderr.write(`context-health report: ${found}\n`);
      return 2;
    }
    scope = { kind: 'turns', from: Math.max(1, found.turn - 5), to: found.turn + 5 };
    values.session ??= found.sessionId;
    compactionTurn = found.turn;
  }

  // loaded at run time, prebuilt (rendererBundle.ts): the Node project's type check stays free of the app (tsconfig.render.json checks it).
  // The drawing side starts loading now, on a worker thread, while this thread reads the file.
  phase('cli loaded');
  const { renderer, drawer } = await loadRenderer();
  phase('renderer loaded, drawing thread started');
  try {
    return await reportWith(renderer, drawer, file, { ...values, format, failOn, userThresholds, from, scorer, scope, threads, compactionTurn });
  } finally {
    await drawer.close();
  }
}

interface Options {
  session?: string | undefined;
  out: string;
  timestamp: boolean;
  format: 'md' | 'html';
  failOn: 'fault' | 'warning' | 'never';
  userThresholds: Partial<Thresholds>;
  from: Exclude<ReturnType<typeof parseFrom>, { error: string }>;
  scorer: 'auto' | 'harness' | 'reference' | 'both';
  scope: ReportJob['scope'];
  /** `--threads N` (default reportThreads()) */
  threads: number;
  /** contract §8.3 `--compaction N`: the compaction's turn */
  compactionTurn: number | undefined;
}

async function reportWith(renderer: ReportRenderer, drawer: ReportDrawer, file: string, values: Options): Promise<number> {
  const { userThresholds, scorer, from, format, failOn, scope, threads } = values;
  // one export time for the early charts' stamps and the report's (--timestamp)
  let exportedAt: string | null | undefined;
  const job = (sha256: string | null): ReportJob => ({
    scope,
    format,
    exportedAt: (exportedAt ??= values.timestamp ? new Date().toISOString() : null),
    source: { kind: 'file', name: path.basename(file), sha256 },
    sessionId: values.session ?? null,
    userThresholds,
    // the rule links point at the published contract: a report is shared, a path of this machine is not
    contractUrl: STABLE_CONTRACT_URL,
    fontDir: FONTS,
    ...(values.compactionTurn === undefined ? {} : { compactionTurn: values.compactionTurn }),
  });
  // As soon as the turns the charts show are final (--incident N: the incident has ended and
  // the file is read past its margin), the drawing thread draws and rasterises them while this
  // thread reads the rest of the file; the sha256 in their stamps is the one that thread is
  // making. Whatever the rest of the file changes in them, the final input tells (drawer.draw).
  // (CONTEXT_HEALTH_EARLY_CHARTS=0 draws them only at the end, as before: the same bytes, docs/reports.md)
  const early =
    process.env.CONTEXT_HEALTH_EARLY_CHARTS === '0'
      ? undefined
      : {
          sessionId: values.session ?? null,
          onSettled: () => {
            try {
              drawer.early(renderer.analyse(sink, job(null)).draw);
              phase('charts settled, early drawing posted');
            } catch {
              // nothing drawn early: drawn at the end, and any error said then
            }
          },
        };
  const sink = renderer.sink(userThresholds, scope, early);
  let result;
  let sha: string;
  try {
    [sha, result] = await Promise.all([
      drawer.sha256(file).finally(() => phase('sha256 received')),
      checkTranscript(file, { userThresholds, scorer, threads, onOutcome: (o) => sink.take(o), ...(from === undefined ? {} : { from }) }).finally(() =>
        phase('file read and checked'),
      ),
    ]);
  } catch (e) {
    process.stderr.write(errorLine(`context-health: cannot read ${file}: ${(e as Error).message}`));
    return 2;
  }
  const snapshots = result.report.sessions.reduce((n, s) => n + s.turns, 0);
  if (snapshots === 0) {
    process.stderr.write(errorLine(`context-health: ${noSnapshotSentence(file, result.adapter, result.report)}`));
    return 2;
  }
  let rendered;
  try {
    const { data, draw } = renderer.analyse(sink, job(sha));
    phase('report analysed');
    rendered = { data, files: await drawer.draw(draw) };
    phase('report drawn (files received)');
  } catch (e) {
    process.stderr.write(escapeLines(`context-health report: ${(e as Error).message}\n`));
    return 2;
  }
  const out = values.out;
  try {
    await writeReportFiles(out, rendered.files);
  } catch (e) {
    if (!(e instanceof ReportWriteError)) throw e;
    process.stderr.write(escapeLines(`context-health report: ${e.message}\n`));
    return 2;
  }
  phase('files written');
  const d = rendered.data;
  const about =
    d.focus !== null ? `incident ${d.focus.number} (${d.focus.signal}, turns ${d.focus.firstTurn}–${d.focus.lastTurn})` : `turns ${d.range.from}–${d.range.to}`;
  await writeAll(
    process.stdout,
    escapeLines(`wrote ${rendered.files.map((f) => path.join(out, f.name)).join(', ')}\nsession ${JSON.stringify(d.sessionId)}, ${about}\n`),
  );
  // the exit status of `check` on the same file and options (contract §6.1)
  const filtered =
    values.session === undefined ? result.report : { ...result.report, sessions: result.report.sessions.filter((s) => s.session_id === values.session) };
  return reachesFailLevel(filtered, failOn) ? 1 : 0;
}

/** contract §8.3: the turn of the N-th compaction of the session (`--session`, else the first session that has one). */
async function findCompaction(
  file: string,
  n: number,
  sessionId: string | undefined,
  options: Pick<CheckOptions, 'userThresholds' | 'scorer' | 'from'>,
): Promise<{ turn: number; sessionId: string } | string> {
  let result;
  try {
    result = await checkTranscript(file, options);
  } catch (e) {
    return `cannot read ${file}: ${(e as Error).message}`;
  }
  const sessions = result.report.sessions.filter((s) => (sessionId === undefined ? (s.compactions?.length ?? 0) > 0 : s.session_id === sessionId));
  const session = sessions[0];
  if (session === undefined) return sessionId === undefined ? `${file} holds no compaction` : `${file} holds no session ${JSON.stringify(sessionId)}`;
  const list = session.compactions ?? [];
  const record = list[n - 1];
  if (record === undefined) return `session ${JSON.stringify(session.session_id)} has ${list.length} compaction${list.length === 1 ? '' : 's'}, not ${n}`;
  // its turn only: the record (a summary of megabytes, its items) is not held while the file is read again
  return { turn: record.turn, sessionId: session.session_id };
}
