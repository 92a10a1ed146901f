// What Claude Code adds to a prompt the user typed, in its text, in a text block of its own or
// in a user record of its own: its IDE integrations' (VS Code, JetBrains) notes of the file
// open in the editor, `<ide_opened_file>…</ide_opened_file>`, and of the lines selected,
// `<ide_selection>…</ide_selection>`, and its own `<system-reminder>…</system-reminder>`
// blocks (hook context, reminders). The model sees them; they are not the user's words, so a
// prompt's label, the session's title and the compaction audit (contract §8.4 `user_prompt`:
// the prompt as the user wrote it) leave them out (docs/adapters.md "injected text").
import { firstWords } from './spanLabels.ts';

/** each block closed by its own tag (a selection's text may hold anything but that tag) */
const TAGS = ['ide_opened_file', 'ide_selection', 'system-reminder'] as const;
const MAY_HOLD = /<(?:ide_|system-reminder>)/;
const OPENED = /The user opened the file (.+?) in the IDE\./;
const SELECTED = /The user selected the lines (\d+) to (\d+) from (.+?)(?::|$)/m;

/** The text as the user typed it: the injected blocks left out, and the white space around them. */
export function typedText(text: string): string {
  return MAY_HOLD.test(text) ? withoutInjected(text).trim() : text;
}

/**
 * The text without its injected blocks, in one pass: each tag's next opening is looked for
 * again only once the scan has passed it, and a tag with no closing left is looked for no
 * more, so a hostile text of many unclosed tags costs what reading it does (a regex with a
 * lazy match to a closing tag would rescan the rest of the text from each opening).
 */
function withoutInjected(text: string): string {
  const next = TAGS.map((t) => text.indexOf(`<${t}>`));
  let out = '';
  let at = 0;
  for (;;) {
    let k = -1;
    for (let i = 0; i < TAGS.length; i++) if (next[i]! >= 0 && (k === -1 || next[i]! < next[k]!)) k = i;
    if (k === -1) break;
    const open = next[k]!;
    const close = text.indexOf(`</${TAGS[k]}>`, open + TAGS[k]!.length + 2);
    if (close === -1) {
      next[k] = -1; // none closes from here on: the rest of this tag's openings stay as text
      continue;
    }
    out += text.slice(at, open);
    at = close + TAGS[k]!.length + 3;
    for (let i = 0; i < TAGS.length; i++) if (next[i]! >= 0 && next[i]! < at) next[i] = text.indexOf(`<${TAGS[i]}>`, at);
  }
  return out + text.slice(at);
}

/** A label for a text that is only injected blocks ("IDE: opened auth.ts"), or null when it is not. */
export function injectedLabel(text: string): string | null {
  if (!MAY_HOLD.test(text) || typedText(text) !== '') return null;
  if (text.trimStart().startsWith('<system-reminder>')) return `system reminder: ${firstWords(text.replace(/<\/?system-reminder>/g, ''), 40)}`;
  const opened = OPENED.exec(text);
  if (opened !== null) return `IDE: opened ${basename(opened[1]!)}`;
  const selected = SELECTED.exec(text);
  if (selected !== null) return `IDE: selected lines ${selected[1]}–${selected[2]} of ${basename(selected[3]!)}`;
  return `IDE: ${firstWords(text.replace(/<\/?ide_[a-z_]+>/g, ''), 40)}`;
}

function basename(path: string): string {
  return path.split(/[/\\]/).pop() ?? path;
}
