// Claude Code's `attachment` records (docs/adapters.md "attachments"): what it adds to the
// conversation outside the user's and the model's messages, as
// `{"type": "attachment", "attachment": {"type": <kind>, …}}`, in the parentUuid chain like
// any message. Two kinds carry text the model is sent, in a shape other parsers of real
// transcripts agree on:
// - `queued_command`: a prompt the user typed while Claude was working, delivered at the
//   next call (`prompt`: a string, or text and image blocks); a `<task-notification>` in
//   that place is a background task's report, not the user's words;
// - `hook_additional_context` (`content`: strings a hook added) and `nested_memory` (a
//   CLAUDE.md read on the way, `path` and `content.content`).
// Every other kind (`file`, `diagnostics`, `hook_success`, `task_reminder`, …) is skipped
// and counted by kind: its shape and what of it reaches the model vary by version.
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
      return { prompt, typed: !first.trimStart().startsWith('<task-notification>') };
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
    default:
      return { skip: `attachment:${kind}` };
  }
}
