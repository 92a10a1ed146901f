// What Claude Code's IDE integrations (VS Code, JetBrains) add to a prompt the user typed:
// a note of the file open in the editor, `<ide_opened_file>…</ide_opened_file>`, or of the
// lines selected, `<ide_selection>…</ide_selection>`, in the prompt's text or in a text block
// (or a user record) of their own. The model sees them; they are not the user's words, so a
// prompt's label, the session's title and the compaction audit (contract §8.4 `user_prompt`:
// the prompt as the user wrote it) leave them out (docs/adapters.md "IDE notes").
import { firstWords } from './spanLabels.ts';

/** each note closed by its own tag (a selection's text may hold anything but that tag) */
const IDE_NOTE = /<(ide_opened_file|ide_selection)>[\s\S]*?<\/\1>/g;
const OPENED = /The user opened the file (.+?) in the IDE\./;
const SELECTED = /The user selected the lines (\d+) to (\d+) from (.+?)(?::|$)/m;

/** The text as the user typed it: the IDE's notes left out, and the white space around them. */
export function typedText(text: string): string {
  return text.includes('<ide_') ? text.replace(IDE_NOTE, '').trim() : text;
}

/** A label for a text that is only an IDE note ("IDE: opened auth.ts"), or null when it is not one. */
export function ideNoteLabel(text: string): string | null {
  if (!text.includes('<ide_') || typedText(text) !== '') return null;
  const opened = OPENED.exec(text);
  if (opened !== null) return `IDE: opened ${basename(opened[1]!)}`;
  const selected = SELECTED.exec(text);
  if (selected !== null) return `IDE: selected lines ${selected[1]}–${selected[2]} of ${basename(selected[3]!)}`;
  return `IDE: ${firstWords(text.replace(/<\/?ide_[a-z_]+>/g, ''), 40)}`;
}

function basename(path: string): string {
  return path.split(/[/\\]/).pop() ?? path;
}
