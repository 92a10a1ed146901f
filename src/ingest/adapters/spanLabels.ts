// contract §8.8 labels: a short human name for each span of an imported session, from what
// it is ("Read cmd/x.go", "Bash: go test ./...", "result of Read cmd/x.go", the first words
// of a prompt), so no screen or report has to name a span by its record UUID.

/** A label is read in one glance. */
import { firstWords as shorten } from '../../core/shortText.ts';

export const LABEL_MAX = 60;

/** The first words of a text, white space collapsed, at most `max` characters. */
export function firstWords(text: string, max = LABEL_MAX): string {
  return shorten(text, max);
}

/** A path as a person reads it in a project: relative to its working folder when inside it. */
export function shownPath(path: string, cwd: string | null): string {
  if (cwd !== null && cwd !== '') {
    const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
    if (path.startsWith(base)) return path.slice(base.length);
  }
  return path;
}

type Input = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Claude Code's tools by name, and what names a call of each (docs/adapters.md labels). */
export function toolCallLabel(name: string, input: Input, cwd: string | null): string {
  const path = str(input.file_path) ?? str(input.notebook_path);
  switch (name) {
    case 'Read':
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
      return path === null ? name : firstWords(`${name} ${shownPath(path, cwd)}`);
    case 'Bash':
      return str(input.command) === null ? 'Bash' : firstWords(`Bash: ${str(input.command)!}`);
    case 'Grep':
    case 'Glob':
      return str(input.pattern) === null ? name : firstWords(`${name} ${str(input.pattern)!}`);
    case 'Task':
      return firstWords(`Task: ${str(input.description) ?? str(input.prompt) ?? ''}`.trim());
    case 'TodoWrite':
      return Array.isArray(input.todos) ? `TodoWrite (${input.todos.length} item${input.todos.length === 1 ? '' : 's'})` : 'TodoWrite';
    case 'WebFetch':
      return str(input.url) === null ? name : firstWords(`WebFetch ${str(input.url)!}`);
    case 'WebSearch':
      return str(input.query) === null ? name : firstWords(`WebSearch: ${str(input.query)!}`);
    default:
      return name === '' ? 'tool call' : firstWords(name);
  }
}

/** A text's first line, trimmed (contract §8.4 \`error\`: a tool's error by its first line). */
export function firstLine(text: string): string {
  const t = text.trim();
  const nl = t.indexOf('\n');
  return nl < 0 ? t : t.slice(0, nl).trim();
}
