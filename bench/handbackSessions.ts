// Generated Claude Code sessions with compactions for `npm run bench -- handback`, in the
// record shapes Claude Code writes (docs/adapters.md "Claude Code": user / assistant records
// chained by parentUuid, one requestId per API call with its usage, tool_use / tool_result
// blocks, TodoWrite, `system` compact_boundary with compactMetadata, the `isCompactSummary`
// user record). The summaries follow Claude Code's own layout ("This session is being
// continued…", "Primary Request and Intent", "Files and Code Sections", "All user
// messages", "Pending Tasks"): they quote most of the user's messages, reword some, leave
// long ones out, and name most files. After each compaction the agent reads some files
// again, named or not. Seeded: the same parameters give the same bytes.
type Json = Record<string, unknown>;

const WORDS =
  'cache layer retry token refresh cookie session handler schema migration index query build flaky race config option request response header queue batch flush writer reader parser'.split(
    ' ',
  );

export interface GeneratedSession {
  name: string;
  /** the whole transcript (every compaction followed by calls) */
  full: string;
  /** byte offsets just after each compaction's summary line: the transcript as the hook sees it */
  cuts: number[];
}

class Rng {
  constructor(private x: number) {}
  next(): number {
    this.x = (this.x * 1103515245 + 12345) % 2147483648;
    return this.x / 2147483648;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

function prose(r: Rng, words: number): string {
  return Array.from({ length: words }, () => r.pick(WORDS)).join(' ');
}

/** a user's own words: a vocabulary of ~1,000 (names, identifiers) the summaries' prose does not share */
const SYLLABLES = 'ka lo mi ren tu vos zar pel qui dor fen gal hub jin mox nef'.split(' ');
function ask(r: Rng, words: number): string {
  return Array.from({ length: words }, () => (r.next() < 0.3 ? r.pick(WORDS) : `${r.pick(SYLLABLES)}${r.pick(SYLLABLES)}${r.pick(SYLLABLES)}`)).join(' ');
}

export interface SessionPlan {
  name: string;
  seed: number;
  compactions: number;
  /** calls per stretch */
  calls: number;
  /** characters of a file read's result */
  fileChars: number;
  /** the chance that a call is a new prompt (default 0.06) */
  promptRate?: number;
  /** the chance that the summary quotes a short prompt word for word (default 0.55) */
  quoteRate?: number;
}

export function generateSession(plan: SessionPlan): GeneratedSession {
  const r = new Rng(plan.seed);
  const lines: string[] = [];
  const cuts: number[] = [];
  let bytes = 0;
  let n = 0;
  let parent: string | null = null;
  let req = 0;
  let tool = 0;
  const files = Array.from({ length: 30 }, (_, i) => `/home/dev/app/src/${r.pick(WORDS)}/${r.pick(WORDS)}${i}.ts`);
  const push = (type: string, extra: Json): string => {
    const uuid = `${plan.name}-${++n}`;
    const rec = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/home/dev/app',
      sessionId: plan.name,
      version: '2.0.37',
      type,
      uuid,
      timestamp: new Date(Date.UTC(2026, 10, 30, 10, 0, n)).toISOString(),
      ...extra,
    };
    parent = uuid;
    const line = JSON.stringify(rec) + '\n';
    lines.push(line);
    bytes += Buffer.byteLength(line);
    return uuid;
  };
  let context = 4000;
  const call = (content: Json[]): void => {
    context += 400;
    const usage = { input_tokens: 3, cache_creation_input_tokens: 200, cache_read_input_tokens: context, output_tokens: 120 };
    push('assistant', {
      requestId: `req_${plan.name}_${++req}`,
      message: { id: `msg_${req}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, usage },
    });
  };
  const useTool = (name: string, input: Json, result: string): void => {
    const id = `toolu_${plan.name}_${++tool}`;
    call([{ type: 'tool_use', id, name, input }]);
    push('user', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] }, toolUseResult: { type: 'text' } });
  };
  const read = (f: string): void => useTool('Read', { file_path: f }, `     1\t// ${f}\n${prose(r, Math.ceil(plan.fileChars / 7))}`);
  for (let k = 0; k < plan.compactions; k++) {
    const prompts: string[] = [];
    const touched = new Set<string>();
    let todos: string[] = [];
    for (let c = 0; c < plan.calls; c++) {
      const roll = r.next();
      const rest = (roll - (plan.promptRate ?? 0.06)) / (1 - (plan.promptRate ?? 0.06));
      if (c === 0 || roll < (plan.promptRate ?? 0.06)) {
        // a prompt: short, long, or over several lines
        const p = r.next() < 0.25 ? `${ask(r, 40)}\n\n${ask(r, 30)}` : r.next() < 0.5 ? `Please ${ask(r, 12)}` : `${ask(r, 6)} in ${r.pick(files)}`;
        prompts.push(p);
        push('user', { message: { role: 'user', content: p } });
        call([{ type: 'text', text: `I'll ${prose(r, 8)}.` }]);
      } else if (rest < 0.47) {
        const f = r.pick(files);
        touched.add(f);
        read(f);
      } else if (rest < 0.63) {
        const f = r.pick(files);
        touched.add(f);
        useTool('Edit', { file_path: f, old_string: prose(r, 4), new_string: prose(r, 5) }, `The file ${f} has been updated.`);
      } else if (rest < 0.7) {
        todos = Array.from({ length: 2 + r.int(4) }, () => prose(r, 5));
        useTool(
          'TodoWrite',
          { todos: todos.map((t, i) => ({ content: t, status: i === 0 ? 'completed' : 'pending', activeForm: t })) },
          'Todos have been modified successfully.',
        );
      } else {
        useTool('Bash', { command: `npm test -- ${r.pick(WORDS)}`, description: 'Run tests' }, `PASS ${prose(r, 30)}`);
      }
    }
    push('system', {
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      level: 'info',
      isMeta: false,
      compactMetadata: { trigger: 'auto', preTokens: context },
    });
    const named = [...touched].filter(() => r.next() < 0.6).map((f) => f.slice(f.lastIndexOf('/') + 1));
    const quoted = prompts.map((p) => {
      const x = r.next();
      if (x < (plan.quoteRate ?? 0.55) && p.length < 200) return `- "${p}"`;
      if (x < 0.8) return `- The user asked to ${p.split(/\s+/).slice(0, 6).join(' ')} and more`;
      return null;
    });
    const summary = [
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
      'Analysis:',
      prose(r, 60),
      'Summary:',
      `1. Primary Request and Intent:\n   ${prose(r, 30)}`,
      `2. Key Technical Concepts:\n   - ${prose(r, 10)}`,
      `3. Files and Code Sections:\n${named.map((f) => `   - ${f}: ${prose(r, 8)}`).join('\n')}`,
      `4. All user messages:\n${quoted.filter((q) => q !== null).join('\n')}`,
      `5. Pending Tasks:\n   - ${prose(r, 8)}`,
      `6. Current Work:\n   ${prose(r, 20)}`,
    ].join('\n');
    push('user', { isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: summary } });
    cuts.push(bytes);
    context = 9000;
    // after the compaction: the agent reads some of the stretch's files again
    call([{ type: 'text', text: 'Let me pick up where we left off.' }]);
    for (const f of touched) if (r.next() < 0.4) read(f);
  }
  return { name: plan.name, full: lines.join(''), cuts };
}
