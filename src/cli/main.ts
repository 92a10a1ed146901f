// `context-health check | serve | replay` (contract §6).
import { parseArgs } from 'node:util';
import { parseThresholdSetting, type Thresholds } from '../core/config.ts';
import { MAX_NESTING } from '../core/nesting.ts';
import { reachesFailLevel } from '../core/checkOutput.ts';
import { formatBytes, MAX_MAX_LINE_BYTES } from '../ingest/lines.ts';
import { noSnapshotSentence, notATranscript, parseFrom } from './adapterNote.ts';
import type { CheckOptions } from './check.ts';
import type { BatchOptions } from './batchCheck.ts';
import fs from 'node:fs';
import { openHandsFolder } from '../node/openhandsFolder.ts';
import { writeAll } from './output.ts';
import { capThreads, parseThreads } from './threads.ts';
import { errorLine, escapeLines } from '../core/terminalText.ts';

const USAGE = `usage:
  context-health check <file|folder|->... [--json] [--fail-on fault|warning|never] [--set key=value]... [--max-line-bytes N]
                 [--from auto|claude-code|swe-agent|codex|gemini|openhands|wire] [--scorer auto|harness|reference|both]
                 [--embeddings-url URL [--embeddings-model M]] [--threads N]
  context-health report <file> [--incident N | --turns A..B] [--out DIR] [--format md|html] [--timestamp] (report --help)
  context-health diff <a> <b> [--json] [--fail-on-new fault|warning|never] [--align turn|relative] [--session ID]... [--set key=value]...
  context-health serve [--port N] [--host H] [--data DIR] [--token T] [--demo] [--sessions DIR]... [--no-local-sessions] [--proxy-port N]
  context-health replay <file> [--url URL] [--speed X] [--session ID] [--token T]
  context-health watch <file-or-folder>... [--url URL] [--state FILE] [--poll MS] [--token T]
  context-health proxy [--port 8788] [--relay URL] [--anthropic-upstream URL] [--openai-upstream URL] [--token T] [--redact REGEX]... (proxy --help)
  context-health alerts add|list|rm|history [options] [--url URL] [--token T]
  context-health hook [--budget N] [--url URL]      (Claude Code SessionStart hook; event on stdin; hook --help)
  context-health hook install|uninstall [--project | --user | --settings FILE]
  context-health statusline                          (Claude Code status line; its JSON on stdin)`;

const CHECK_HELP = `usage: context-health check <file|-> [options]
       context-health check <file|folder>... [options]

Analyses a transcript (.jsonl, .jsonl.gz or a .json array; - reads stdin; a FIFO or
<(...) is read as a stream; a folder that is an OpenHands conversation is read as one) and prints a report, or
with --json the contract §6 object.

formats (told by content; docs/adapters.md), each with a line of its kind:
  Context Health messages   {"type":"snapshot","session_id":"s1","turn":1,"spans":[{"span_id":"a","text":"…","score":0.8,"text_sha256":null}]}
  Claude Code               ~/.claude/projects/<project>/<session>.jsonl
                            {"type":"assistant","sessionId":"9f…","uuid":"4b…","requestId":"req_01…","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":3}}}
  Codex CLI                 ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl
                            {"timestamp":"2026-01-10T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":9120}}}}
  SWE-agent                 *.traj: {"trajectory":[{"action":"ls","observation":"…","query":[…]}],"history":[…],"info":{…}}
  mini-swe-agent            <instance>.traj.json: {"info":{"mini_version":"1.17.5",…},"messages":[{"role":"system","content":"…"},…],"trajectory_format":"mini-swe-agent-1.1"}
  Gemini CLI                ~/.gemini/tmp/<project>/chats/session-*.json (or .jsonl)
                            {"sessionId":"5f1c…","projectHash":"9c3e…","startTime":"2026-01-14T10:01:58Z","messages":[{"id":"a2","type":"gemini","tokens":{"input":8123}}]}
  OpenHands                 ~/.openhands/conversations/<id>/ (or its events/, or the events as a JSON array or JSON Lines)
                            {"kind":"ActionEvent","source":"agent","tool_name":"terminal","tool_call_id":"toolu_01","llm_response_id":"chatcmpl-r1"}
Several files, or folders (walked recursively; files that are not transcripts are skipped
and counted), are read by a pool of threads: one row per file, worst first, and a line of
totals, or with --json one line per file, each the single-file object with its path under
a first key "file" (docs/contract.md §6.1.1).

options:
  --json                  print the JSON output instead of the human one
  --fail-on LEVEL         fault (default), warning or never: the least severity that exits 1
  --set key=value         a threshold (relevance_tolerance, drift_turns, max_rewrites,
                          min_scored, spread_floor, collapse_turns, reference_agreement_floor,
                          compaction_loss_min);
                          beats the header's config
  --max-line-bytes N      the longest line (or .json array element) read, in bytes, or with a
                          suffix K or M (KiB, MiB); default 64M, at most 500M. A longer line is
                          one input error naming the limit and is not held in memory; reading
                          goes on after its newline.
  --from FORMAT           auto (default: told by content), claude-code, swe-agent, codex,
                          gemini, openhands or wire
  --scorer WHICH          auto (default), harness, reference or both: whose relevance scores
                          the detectors read (docs/contract.md §7, docs/adapters.md)
  --embeddings-url URL    the reference scores spans by cosine similarity of embeddings to
                          the task, from an OpenAI-compatible endpoint (URL of /v1/embeddings
                          or its base /v1) instead of BM25; each distinct text is asked once,
                          in batches of 64. Bearer token: CONTEXT_HEALTH_EMBEDDINGS_KEY
  --embeddings-model M    the model named in each request (default text-embedding-3-small)
  --context-window N      the context window in tokens when neither the model table nor the
                          session header gives one (contract §8.7; context_pressure reads it)
  --no-audit              leave the compaction audit out (contract §8.4): each compaction is
                          still one record and one finding, with no items
  --threads N             threads in all: one reads and analyses, N - 1 parse, validate and
                          hash the lines (default: the machine's cores; a file under 8 MiB
                          is read on one, and the N - 1 start only once lines come that the
                          snapshot scanner cannot read). 1: one thread. The report is the
                          same whatever N. Over many files: the pool's threads, one file
                          each at a time.
  -h, --help              this text

limits on hostile input (docs/engine.md, "Hostile input"): a message nested more than
${MAX_NESTING} levels deep (arrays and objects) is an input error; blank lines are skipped;
control characters in the human output are shown escaped (\\x1b).

exit status: 0 nothing reached --fail-on, 1 something did, 2 the input could not be read,
is none of the formats above, or held no valid snapshot (also for a usage error).
Over many files: the worst over the files read; 2 only if no file could be read.
`;

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check':
        return await runCheck(rest);
      case 'diff': {
        const { runDiff } = await import('./diff.ts');
        return await runDiff(rest);
      }
      case 'report': {
        const { runReport } = await import('./report.ts');
        return await runReport(rest);
      }
      case 'serve': {
        const { runServe } = await import('./serve.ts');
        return await runServe(rest);
      }
      case 'watch': {
        const { runWatch } = await import('./watch.ts');
        return await runWatch(rest);
      }
      case 'proxy': {
        const { runProxy } = await import('./proxy.ts');
        return await runProxy(rest);
      }
      case 'alerts': {
        const { runAlerts } = await import('./alerts.ts');
        return await runAlerts(rest);
      }
      case 'replay': {
        const { runReplay } = await import('./replay.ts');
        return await runReplay(rest);
      }
      case 'hook': {
        const { runHook, HookUsage } = await import('./hook/command.ts');
        return await runHook(rest).catch((e: unknown) => {
          throw e instanceof HookUsage ? new UsageError(e.message) : e;
        });
      }
      case 'statusline': {
        const { runStatusline } = await import('./hook/statusline.ts');
        return await runStatusline();
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
      process.stderr.write(escapeLines(`context-health: ${(e as Error).message}\n${USAGE}\n`));
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
      'max-line-bytes': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      from: { type: 'string' },
      scorer: { type: 'string', default: 'auto' },
      'embeddings-url': { type: 'string' },
      'embeddings-model': { type: 'string' },
      'no-audit': { type: 'boolean', default: false },
      'context-window': { type: 'string' },
      threads: { type: 'string' },
    },
  });
  if (values.help) {
    await writeAll(process.stdout, CHECK_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('check takes a file (or - for stdin), or several files and folders');
  if (positionals.length > 1 && positionals.includes('-')) throw new UsageError('check reads stdin (-) alone, not beside other files');
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
  const maxLineBytes = values['max-line-bytes'] === undefined ? undefined : parseByteCount(values['max-line-bytes']);
  const from = parseFrom(values.from);
  if (typeof from === 'object') throw new UsageError(from.error);
  const scorer = values.scorer;
  if (scorer !== 'auto' && scorer !== 'harness' && scorer !== 'reference' && scorer !== 'both') {
    throw new UsageError(`--scorer must be auto, harness, reference or both, got ${JSON.stringify(scorer)}`);
  }
  const parsedThreads = values.threads === undefined ? undefined : parseThreads(values.threads);
  if (typeof parsedThreads === 'object') throw new UsageError(parsedThreads.error);
  const threads = parsedThreads === undefined ? undefined : capThreads(parsedThreads, (l) => process.stderr.write(`${l}\n`));
  const path = positionals[0]!;
  const rawWindow = values['context-window'];
  const contextWindow = rawWindow === undefined ? undefined : Number(rawWindow);
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || contextWindow <= 0)) {
    throw new UsageError(`--context-window expects a whole number of tokens above 0, got ${JSON.stringify(rawWindow)}`);
  }
  // contract §6.1 "Many files": several arguments, or a folder, are read by a pool of threads
  // (an OpenHands conversation's folder is one transcript, docs/adapters.md)
  const batch =
    positionals.length > 1 ||
    ((await fs.promises.stat(positionals[0]!).catch(() => null))?.isDirectory() === true && openHandsFolder(positionals[0]!) === null);
  const embeddingsUrl = values['embeddings-url'];
  if (embeddingsUrl === undefined && values['embeddings-model'] !== undefined) throw new UsageError('--embeddings-model needs --embeddings-url');
  if (embeddingsUrl !== undefined && !URL.canParse(embeddingsUrl)) throw new UsageError(`--embeddings-url must be a URL, got ${JSON.stringify(embeddingsUrl)}`);
  if (embeddingsUrl !== undefined && path === '-') throw new UsageError('--embeddings-url needs a file (it is read twice), not stdin');
  const checkOptions: CheckOptions = {
    userThresholds,
    scorer,
    audit: !values['no-audit'],
    // the human output and the folder table print no score of an agent's session (contract §8.9);
    // an endpoint named with --embeddings-url is asked as before, so that it is known to answer
    ...(values.json || embeddingsUrl !== undefined ? {} : { readsReferenceScores: false }),
    // nor any per-span figure: an agent's snapshots may be abridged (docs/engine.md "Snapshots abridged")
    ...(values.json ? {} : { readsSpanFigures: false }),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(embeddingsUrl === undefined
      ? {}
      : {
          embeddings: {
            url: embeddingsUrl,
            ...(values['embeddings-model'] === undefined ? {} : { model: values['embeddings-model'] }),
            ...(process.env.CONTEXT_HEALTH_EMBEDDINGS_KEY ? { apiKey: process.env.CONTEXT_HEALTH_EMBEDDINGS_KEY } : {}),
          },
        }),
    ...(from === undefined ? {} : { from }),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  };
  if (batch) {
    const { runBatch } = await import('./batchCheck.ts');
    try {
      const batchOptions: BatchOptions = { check: checkOptions, json: values.json, failOn, ...(threads === undefined ? {} : { threads }) };
      return await runBatch(positionals, batchOptions, process.stdout, process.stderr);
    } catch (e) {
      // the pool itself failed (a thread could not start, stdout closed)
      process.stderr.write(escapeLines(`context-health: ${(e as Error).message}\n`));
      return 2;
    }
  }
  // the engine and the adapters load here, not with main.ts: over many files they run in the
  // pool's threads, and the main thread only lists the files and prints
  const [{ checkTranscript }, { writeCheckOutput }, { EmbeddingsError }] = await Promise.all([
    import('./check.ts'),
    import('./checkOutput.ts'),
    import('../node/embeddings.ts'),
  ]);
  let result;
  try {
    result = await checkTranscript(path, { ...checkOptions, ...(threads === undefined ? {} : { threads }) });
  } catch (e) {
    if (e instanceof EmbeddingsError) {
      process.stderr.write(escapeLines(`context-health: ${e.message}\n`));
      return 2;
    }
    process.stderr.write(errorLine(`context-health: cannot read ${path === '-' ? 'stdin' : path}: ${(e as Error).message}`));
    return 2;
  }
  const report = result.report;
  const notOne = from === undefined ? notATranscript(result.adapter, report) : null;
  if (notOne !== null) {
    process.stderr.write(errorLine(`context-health: ${path === '-' ? 'stdin' : path} is ${notOne}`));
    return 2;
  }
  await writeCheckOutput(process.stdout, result, { json: values.json, source: path === '-' ? 'stdin' : path });
  const snapshots = report.sessions.reduce((n, s) => n + s.turns, 0);
  if (snapshots === 0) {
    process.stderr.write(errorLine(`context-health: ${noSnapshotSentence(path === '-' ? 'stdin' : path, result.adapter, report)}`));
    return 2;
  }
  return reachesFailLevel(report, failOn) ? 1 : 0;
}

/** `--max-line-bytes`: bytes, or a whole number of KiB or MiB (`512K`, `64M`). */
function parseByteCount(text: string): number {
  const m = /^(\d+)([KM]?)$/i.exec(text.trim());
  const n = m === null ? Number.NaN : Number(m[1]) * (m[2]!.toUpperCase() === 'M' ? 1 << 20 : m[2]!.toUpperCase() === 'K' ? 1 << 10 : 1);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_MAX_LINE_BYTES) {
    throw new UsageError(
      `--max-line-bytes must be a whole number of bytes from 1 to ${formatBytes(MAX_MAX_LINE_BYTES)} (a suffix K or M for KiB or MiB), got ${JSON.stringify(text)}`,
    );
  }
  return n;
}
