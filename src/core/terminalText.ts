// Text that came from the input (titles, ids, messages, file names) shown on a terminal:
// its control characters are shown, not acted on. An ESC starts a sequence that can clear
// or retitle the terminal, write the clipboard (OSC 52) or plant a link (OSC 8); C1
// controls (U+0080–U+009F) do the same on terminals that read them as 8-bit sequences.
// Bidi controls and zero-width characters do not act on the terminal but on what is read:
// they reorder or hide the text around them ("Trojan Source", CVE-2021-42574), so a title
// or a path can show other words than it holds. They are shown too, as `\uNNNN`.
// Every command's terminal output goes through escapeControls (`check`'s, humanOutput.ts).

/**
 * Bidi controls (U+061C, U+200E/F, U+202A–202E, U+2066–2069) and zero-width characters
 * (U+200B–200D, U+2060, U+FEFF), as a regular expression class's contents; the report's
 * Markdown and HTML (src/report/stamp.ts printable) treat them as they treat C0/C1.
 */
export const INVISIBLE_CLASS = '\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff';

const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_CLASS}]`, 'g');

/** C0 and C1 control characters and DEL shown as `\xNN`, bidi and zero-width characters as `\uNNNN`, instead of acted on. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** escapeControls on each line, keeping the line ends (the only control the output itself puts there). */
/**
 * One line of stderr that names a file, its newline added: every control character escaped,
 * newlines too. escapeLines keeps the newlines a message is laid out with; a name from the
 * disk or the command line with a newline in it (`a\ncontext-health: forged`) would then print
 * a line the product never wrote.
 */
export function errorLine(text: string): string {
  return `${escapeControls(text)}\n`;
}

export function escapeLines(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}
