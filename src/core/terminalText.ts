// Text that came from the input (titles, ids, messages, file names) shown on a terminal:
// its control characters are shown, not acted on. An ESC starts a sequence that can clear
// or retitle the terminal, write the clipboard (OSC 52) or plant a link (OSC 8); C1
// controls (U+0080–U+009F) do the same on terminals that read them as 8-bit sequences.
// Every command's terminal output goes through escapeControls (`check`'s, humanOutput.ts).

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** C0 and C1 control characters and DEL, shown as `\xNN` instead of acted on. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** escapeControls on each line, keeping the line ends (the only control the output itself puts there). */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}
