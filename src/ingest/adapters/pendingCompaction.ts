// docs/hooks.md: the compaction a Claude Code `SessionStart` hook (source `compact`) is told
// about, audited as it stands. At that moment the transcript ends with the compact boundary
// and the summary: the first call after it, whose snapshot carries the audit (contract §8.3,
// §8.4), has not happened yet. The adapter is not changed for it: once the transcript is
// read, one more assistant record stands for that next call, so the adapter judges the
// stretch against exactly what the call will see (the summary and whatever followed it),
// with the one audit every door uses. A transcript where the call already happened (the
// hook ran late) is read as it is: its last compaction is the one.
import type { AuditItem, CarriedItem } from '../../core/compactionAudit.ts';
import type { Snapshot } from '../../core/wire.ts';
import { ClaudeCodeAdapter, type AdaptedMessage } from './claudeCode.ts';
import { isObject, type JsonObject } from './json.ts';

/** the request id of the record that stands for the call to come (never one Claude Code writes: theirs are `req_…`) */
export const PENDING_CALL_ID = 'context-health-pending-call';

/** contract §8.4 `file`: the tools whose path input means the agent changed the file (docs/hooks.md: edited files first). */
const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

export interface AuditedCompaction {
  sessionId: string;
  /** 1-based, as `check` and `report --compaction N` number a session's compactions (microcompactions included) */
  ordinal: number;
  /** the compactions of kind `compact` so far, this one included */
  compacts: number;
  /** the turn it takes effect (the call to come, when pending) */
  turn: number;
  /** true: no call after it yet (the audit is against the text the next call will see) */
  pending: boolean;
  items: AuditItem[];
  carried: CarriedItem[];
  /** paths a main-chain Edit, MultiEdit, Write or NotebookEdit named, anywhere before the compaction */
  edited: ReadonlySet<string>;
}

/**
 * Reads a Claude Code transcript record by record (parsed JSON), then `finish()` names the
 * last compaction, audited. `keep`: also hold every wire message made (for `hook --url`).
 */
export class CompactionFinder {
  private readonly adapter: ClaudeCodeAdapter;
  private readonly editedPaths = new Set<string>();
  private ordinal = 0;
  private compacts = 0;
  private last: AuditedCompaction | null = null;
  private lastLine = 0;
  readonly messages: AdaptedMessage[] = [];

  constructor(
    fallbackSessionId: string,
    private readonly keep = false,
  ) {
    // the spans of the snapshots that mark no compaction are read by nobody here, unless they are sent (hook --url)
    this.adapter = new ClaudeCodeAdapter(fallbackSessionId, true, keep ? 'all' : 'compactions');
  }

  record(value: unknown, line: number): void {
    this.lastLine = line;
    if (isObject(value)) this.noteEdits(value);
    this.take(this.adapter.record(value, line), false);
  }

  /** The last compaction of the transcript (null: it holds none). */
  finish(): AuditedCompaction | null {
    const line = this.lastLine + 1;
    // the call to come: no uuid, no usage, a model name the adapter does not report ('<…>')
    const call = { type: 'assistant', requestId: PENDING_CALL_ID, message: { id: PENDING_CALL_ID, role: 'assistant', model: '<pending>', content: [] } };
    // a real call still waiting for a record with its usage goes out as at the file's end (adapters.md tokens)
    this.take(this.adapter.end(), false);
    // the call to come reports no usage, so the adapter holds it until its end
    this.take(this.adapter.record(call, line).concat(this.adapter.end()), true);
    return this.last;
  }

  private take(messages: AdaptedMessage[], pending: boolean): void {
    for (const m of messages) {
      const value = m.value;
      if (value.type !== 'snapshot') {
        if (this.keep) this.messages.push(m);
        continue;
      }
      const c = compactionOf(value);
      if (pending && c === null) continue; // nothing pending: the call to come is no turn of the file
      if (this.keep) this.messages.push(m);
      if (c === null) continue;
      this.ordinal++;
      if (c.kind !== 'compact') continue;
      this.compacts++;
      this.last = {
        sessionId: value.session_id,
        ordinal: this.ordinal,
        compacts: this.compacts,
        turn: value.turn,
        pending,
        items: c.items,
        carried: c.carried,
        edited: new Set(this.editedPaths),
      };
    }
  }

  /** docs/hooks.md: which paths the agent changed, read from the main chain's tool calls. */
  private noteEdits(record: JsonObject): void {
    if (record.type !== 'assistant' || record.isSidechain === true || !isObject(record.message)) return;
    const content = record.message.content;
    if (!Array.isArray(content)) return;
    for (const b of content) {
      if (!isObject(b) || b.type !== 'tool_use' || typeof b.name !== 'string' || !EDIT_TOOLS.has(b.name) || !isObject(b.input)) continue;
      const path = typeof b.input.file_path === 'string' ? b.input.file_path : b.input.notebook_path;
      if (typeof path === 'string' && path !== '') this.editedPaths.add(path);
    }
  }
}

interface Mark {
  kind: string;
  items: AuditItem[];
  carried: CarriedItem[];
}

/** The adapter's own `compaction` field (contract §8.3), as it wrote it. */
function compactionOf(snap: Snapshot): Mark | null {
  const raw = snap.compaction;
  if (!isObject(raw)) return null;
  return {
    kind: typeof raw.kind === 'string' ? raw.kind : 'compact',
    items: Array.isArray(raw.items) ? (raw.items as AuditItem[]) : [],
    carried: Array.isArray(raw.carried) ? (raw.carried as CarriedItem[]) : [],
  };
}
