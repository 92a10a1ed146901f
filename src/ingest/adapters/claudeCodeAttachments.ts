// Claude Code's `attachment` records (docs/adapters.md "attachments"): what it adds to the
// conversation outside the user's and the model's messages, as
// `{"type": "attachment", "attachment": {"type": <kind>, …}}`, in the parentUuid chain like
// any message. Two kinds carry text the model is sent, in a shape other parsers of real
// transcripts agree on:
// - `queued_command`: a prompt the user typed while Claude was working, delivered at the
//   next call (`prompt`: a string, or text and image blocks); a `<task-notification>` in
//   that place is a background task's report, not the user's words;
// - `hook_additional_context` (`content`: strings a hook added) and `nested_memory` (a
//   CLAUDE.md read on the way, `path` and `content.content`);
// - `file` (`filename`, `content: {type, file}`): a file Claude Code read for the model
//   itself: one the user @-mentioned, and after a compaction the files it had read last,
//   restored right after the summary. Claude Code sends it as a Read call and its result
//   ("Called the Read tool with the following input: {"file_path":…}", "Result of calling
//   the Read tool: …"), so the span holds both: the path (what the compaction audit looks
//   for) and the content (what it weighs);
// - `compact_file_reference` (`filename`): a file read before the compaction that was too
//   large to restore; the model is sent a note naming it ("Note: <path> was read before the
//   last conversation was summarized, but the contents are too large to include. Use Read
//   tool if you need to access it.").
// Real 2.1.x transcripts (a compaction of 2.1.112) write both after the summary.
// - `todo_reminder` and `task_reminder` (`content`: the todo items, or the tasks): the nudge
//   Claude Code sends when the todo or task tools have not been used for a while, as a meta
//   user message in <system-reminder> (read in @anthropic-ai/claude-code 1.0.56, 2.0.0 and
//   2.1.332; docs/adapters.md "attachments"); its text is rebuilt here as those versions
//   word it.
// Every other kind (`diagnostics`, `hook_success`, …) is skipped and counted by kind: its
// shape and what of it reaches the model vary by version.
import { isObject, type JsonObject } from './json.ts';
import { firstWords } from './spanLabels.ts';

export type AttachmentView =
  /** a user message in all but name: its content, and whether the user wrote it */
  | { prompt: string | unknown[]; typed: boolean }
  /** context the model is sent: its text and a label */
  | { text: string; label: string }
  | { skip: string };

export function attachmentView(record: JsonObject): AttachmentView {
  const a = record.attachment;
  if (!isObject(a)) return { skip: 'attachment (no attachment)' };
  const kind = typeof a.type === 'string' ? a.type : '(no type)';
  switch (kind) {
    case 'queued_command': {
      const prompt = a.prompt;
      if (typeof prompt !== 'string' && !Array.isArray(prompt)) return { skip: 'attachment:queued_command (no prompt)' };
      const first = typeof prompt === 'string' ? prompt : prompt.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n');
      return { prompt, typed: !first.trimStart().startsWith('<task-notification>') && !notThePersons(a) };
    }
    case 'hook_additional_context': {
      const parts = Array.isArray(a.content) ? a.content.filter((c): c is string => typeof c === 'string') : typeof a.content === 'string' ? [a.content] : [];
      const text = parts.join('\n');
      if (text === '') return { skip: 'attachment:hook_additional_context (no text)' };
      const hook = typeof a.hookName === 'string' && a.hookName !== '' ? a.hookName : 'hook';
      return { text, label: `${hook} context: ${firstWords(text, 40)}` };
    }
    case 'nested_memory': {
      const content = isObject(a.content) ? a.content.content : a.content;
      if (typeof content !== 'string' || content === '') return { skip: 'attachment:nested_memory (no text)' };
      const path = typeof a.path === 'string' ? a.path : '';
      return { text: content, label: `memory: ${path.split(/[/\\]/).slice(-2).join('/') || 'CLAUDE.md'}` };
    }
    case 'file': {
      const path = typeof a.filename === 'string' ? a.filename : '';
      const content = fileContent(a.content);
      if (path === '' || content === null) return { skip: 'attachment:file' };
      const text = `Called the Read tool with the following input: ${JSON.stringify({ file_path: path })}\nResult of calling the Read tool: ${content}`;
      return { text, label: `file: ${shownPath(a, path)}` };
    }
    case 'compact_file_reference': {
      const path = typeof a.filename === 'string' ? a.filename : '';
      if (path === '') return { skip: 'attachment:compact_file_reference' };
      const text = `Note: ${path} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it.`;
      return { text, label: `file named, not restored: ${shownPath(a, path)}` };
    }
    case 'todo_reminder': {
      if (!Array.isArray(a.content)) return { skip: 'attachment:todo_reminder (no content)' };
      const items = a.content.filter(isObject);
      const v1 = typeof record.version === 'string' && record.version.startsWith('1.');
      // 1.x items carried a priority, shown after each; 2.x dropped it
      const list = items.map((t, i) => `${i + 1}. [${String(t.status)}] ${String(t.content)}${v1 ? ` (${String(t.priority)})` : ''}`).join('\n');
      let text = v1 ? TODO_REMINDER_V1 : TODO_REMINDER;
      if (list !== '') text += `\n\nHere are the existing contents of your todo list:\n\n[${list}]`;
      return { text, label: `todo reminder: ${count(items.length, 'item')}` };
    }
    case 'task_reminder': {
      if (!Array.isArray(a.content)) return { skip: 'attachment:task_reminder (no content)' };
      const items = a.content.filter(isObject);
      const list = items.map((t) => `#${String(t.id)}. [${String(t.status)}] ${String(t.subject)}`).join('\n');
      let text = a.statusKeeper === 'app' ? TASK_REMINDER_APP : a.statusKeeper === 'claude' ? TASK_REMINDER_CLAUDE : TASK_REMINDER;
      if (list !== '') text += `\n\nHere are the existing tasks:\n\n${list}`;
      return { text, label: `task reminder: ${count(items.length, 'task')}` };
    }
    default:
      return { skip: `attachment:${kind}` };
  }
}

/** The reminders' fixed text, as Claude Code words it (claudeCodeAttachments above; 2.0.0 to 2.1.332, and 1.0.56 for 1.x). */
const TODO_REMINDER =
  "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n";
const TODO_REMINDER_V1 =
  "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n";
const TASK_REMINDER =
  "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n";
/** `statusKeeper: "app"`: the app ticks the items off itself */
const TASK_REMINDER_APP =
  "If new work would benefit from tracking progress, add it with TaskCreate. The app marks these items in progress and checks them off by itself as the work gets done, so you don't need to call TaskUpdate to change their status. Use it to rename or delete an item.\n";
/** `statusKeeper: "claude"`: the app handed the statuses back to the model */
const TASK_REMINDER_CLAUDE = "The app can't update the task list right now; update item statuses yourself.\n";

/**
 * A queued prompt Claude Code sends as a meta message, not as the user's words: one marked
 * `isMeta`, one from a background task (`commandMode: "task-notification"`), or one whose
 * `origin` names another sender than a person (2.1.332: `origin.kind` other than `human`:
 * `task-notification`, `peer`, `channel`, `coordinator`, … ; 2.1.126 set `origin` only for those).
 */
function notThePersons(a: JsonObject): boolean {
  if (a.isMeta === true || a.commandMode === 'task-notification') return true;
  return isObject(a.origin) && a.origin.kind !== 'human';
}

function count(n: number, noun: string): string {
  return n === 0 ? `no ${noun}s` : n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
}

/**
 * How a `system` record the adapter does not map is counted: by its subtype, with why when it
 * is known. `away_summary` is the recap Claude Code writes while the user is away (a side call
 * of its own, appended to the transcript and shown in the UI); system records other than a
 * local command's output are never sent to the model (docs/adapters.md, 2.1.332).
 */
export function skippedSystem(subtype: string | null): string {
  if (subtype === 'away_summary') return 'system:away_summary (a recap shown to the user, not sent to the model)';
  return `system:${subtype ?? '(no subtype)'}`;
}

/** The path as Claude Code shows it (`displayPath`, relative to the project), else the last two parts of `filename`. */
function shownPath(a: JsonObject, path: string): string {
  return typeof a.displayPath === 'string' && a.displayPath !== '' ? a.displayPath : path.split(/[/\\]/).slice(-2).join('/');
}

/** A `file` attachment's content as the model reads it: a text file's text, a notebook's cells as JSON, `[image]`, `[pdf]`; null when it has none. */
function fileContent(content: unknown): string | null {
  if (!isObject(content)) return null;
  const file = isObject(content.file) ? content.file : null;
  switch (content.type) {
    case 'text':
      return file !== null && typeof file.content === 'string' ? file.content : null;
    case 'notebook':
      return file !== null && Array.isArray(file.cells) ? JSON.stringify(file.cells) : null;
    case 'image':
    case 'pdf':
      return `[${content.type}]`;
    default:
      return null;
  }
}
