// docs/hooks.md "Install": the hook's entry added to, or taken out of, the text of a Claude
// Code settings file (`hooks.SessionStart[]`, matcher `compact`). Only the entry's own text
// changes: it goes in after the last sibling with the file's own line ending and indentation,
// and uninstall cuts exactly that span (and the containers install had to create, once
// empty), so install then uninstall gives the file back byte for byte.
import { indentAt, member, parseJsonText, type JsonMember, type JsonNode } from './jsonText.ts';

/** docs/hooks.md: seconds Claude Code gives the hook (its own time budget is shorter). */
export const HOOK_TIMEOUT_S = 15;

/** A command this tool installed: `… context-health[.mjs] hook …`, however the executable was named. */
export function isOurCommand(command: string): boolean {
  return /context-health(\.mjs)?['"]?\s+hook(\s|$)/.test(command);
}

export function hookGroup(command: string): unknown {
  return { matcher: 'compact', hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_S }] };
}

export type Edit = { text: string; change: string } | { error: string };

interface Style {
  eol: string;
  unit: string;
  /** the file keeps its members on one line: so does the edit */
  flat: boolean;
}

function styleOf(text: string, root: JsonNode): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const first = root.type === 'object' ? root.members[0] : undefined;
  if (first !== undefined && !text.slice(root.start, first.keyStart).includes('\n')) return { eol, unit: '', flat: true };
  const unit = first === undefined ? '  ' : indentAt(text, first.keyStart) || '  ';
  return { eol, unit, flat: false };
}

function render(value: unknown, indent: string, s: Style): string {
  if (s.flat) return JSON.stringify(value);
  return JSON.stringify(value, null, s.unit)
    .split('\n')
    .join(s.eol + indent);
}

/** Inserts `piece` (a member `"k": v` or an element) as the last child of `node`. */
function append(text: string, node: JsonNode & { type: 'object' | 'array' }, piece: (indent: string) => string, s: Style): { text: string; at: number } {
  const children = node.type === 'object' ? node.members.map((m) => ({ start: m.keyStart, end: m.value.end })) : node.elements;
  const last = children.at(-1);
  if (last !== undefined) {
    const indent = s.flat ? '' : indentAt(text, last.start);
    const ins = `,${s.flat ? '' : s.eol + indent}${piece(indent)}`;
    return { text: text.slice(0, last.end) + ins + text.slice(last.end), at: last.end };
  }
  const outer = s.flat ? '' : indentAt(text, node.start);
  const inner = s.flat ? '' : outer + s.unit;
  const ins = s.flat ? piece('') : `${s.eol}${inner}${piece(inner)}${s.eol}${outer}`;
  return { text: text.slice(0, node.start + 1) + ins + text.slice(node.end - 1), at: node.start + 1 };
}

/** The hook's entry added; the text unchanged (and says so) when one is there already. */
export function installInto(text: string | null, command: string): Edit {
  const group = hookGroup(command);
  if (text === null || text.trim() === '') {
    const fresh = JSON.stringify({ hooks: { SessionStart: [group] } }, null, 2) + '\n';
    return { text: fresh, change: 'created it' };
  }
  let root: JsonNode;
  try {
    root = parseJsonText(text);
  } catch (e) {
    return { error: `it is not valid JSON (${(e as Error).message}); left untouched` };
  }
  if (root.type !== 'object') return { error: 'it is not a JSON object; left untouched' };
  const s = styleOf(text, root);
  const hooks = member(root, 'hooks');
  const key = (k: string, v: unknown) => (indent: string) => `${JSON.stringify(k)}:${s.flat ? '' : ' '}${render(v, indent, s)}`;
  if (hooks === undefined) return added(append(text, root, key('hooks', { SessionStart: [group] }), s), 'hooks');
  if (hooks.value.type !== 'object') return { error: '"hooks" is not an object; left untouched' };
  const start = member(hooks.value, 'SessionStart');
  if (start === undefined) return added(append(text, hooks.value, key('SessionStart', [group]), s), 'hooks.SessionStart');
  if (start.value.type !== 'array') return { error: '"hooks.SessionStart" is not an array; left untouched' };
  if (ours(start.value).length > 0) return { text, change: 'the hook is there already: nothing changed' };
  return added(
    append(text, start.value, (indent) => render(group, indent, s), s),
    `hooks.SessionStart[${start.value.elements.length}]`,
  );
}

function added(r: { text: string; at: number }, where: string): Edit {
  return { text: r.text, change: `added ${where}` };
}

interface Cut {
  start: number;
  end: number;
}

/** The span that takes child `i` of a container out, separator included. */
function cutOf(container: JsonNode, spans: Cut[], i: number): Cut {
  if (i > 0) return { start: spans[i - 1]!.end, end: spans[i]!.end };
  if (spans.length > 1) return { start: spans[0]!.start, end: spans[1]!.start };
  return { start: container.start + 1, end: container.end - 1 };
}

/** The hooks of `hooks.SessionStart` this tool installed: [group index, hook index or null for the whole group]. */
function ours(start: JsonNode): [number, number | null][] {
  if (start.type !== 'array') return [];
  const out: [number, number | null][] = [];
  start.elements.forEach((g, gi) => {
    const list = member(g, 'hooks')?.value;
    if (list?.type !== 'array') return;
    const mine = list.elements
      .map((h, hi) => ({ h, hi }))
      .filter(({ h }) => {
        const c = member(h, 'command')?.value;
        return c?.type === 'string' && isOurCommand(c.value);
      });
    if (mine.length === 0) return;
    if (mine.length === list.elements.length) out.push([gi, null]);
    else for (const { hi } of mine) out.push([gi, hi]);
  });
  return out;
}

const memberSpans = (node: JsonNode & { type: 'object' }): Cut[] => node.members.map((m: JsonMember) => ({ start: m.keyStart, end: m.value.end }));

/** The hook entries of ours in `root`, if any. */
function oursIn(root: JsonNode): [number, number | null][] {
  const hooks = member(root, 'hooks')?.value;
  const start = hooks === undefined ? undefined : member(hooks, 'SessionStart')?.value;
  return start === undefined ? [] : ours(start);
}

/** One cut of the hook's text, or null when nothing of it is left. */
function nextCut(root: JsonNode): Cut | null {
  const hooks = member(root, 'hooks');
  if (hooks === undefined || hooks.value.type !== 'object' || root.type !== 'object') return null;
  // what install created, once emptied: the hooks object, after the array
  if (hooks.value.members.length === 0) return cutOf(root, memberSpans(root), root.members.indexOf(hooks));
  const start = member(hooks.value, 'SessionStart');
  if (start === undefined || start.value.type !== 'array') return null;
  const found = ours(start.value);
  if (found.length > 0) {
    const [gi, hi] = found.at(-1)!;
    if (hi === null) return cutOf(start.value, start.value.elements, gi);
    const list = member(start.value.elements[gi]!, 'hooks')!.value as JsonNode & { type: 'array' };
    return cutOf(list, list.elements, hi);
  }
  if (start.value.elements.length === 0) return cutOf(hooks.value, memberSpans(hooks.value), hooks.value.members.indexOf(start));
  return null;
}

/** The hook's entries taken out, the file's other bytes as they were. */
export function uninstallFrom(text: string): Edit {
  let root: JsonNode;
  try {
    root = parseJsonText(text);
  } catch (e) {
    return { error: `it is not valid JSON (${(e as Error).message}); left untouched` };
  }
  // an emptied container is cut only when install could have made it: some hook of ours was there
  if (oursIn(root).length === 0) return { text, change: 'the hook is not there: nothing changed' };
  let out = text;
  let cuts = 0;
  for (let cut = nextCut(root); cut !== null; cut = nextCut(root)) {
    out = out.slice(0, cut.start) + out.slice(cut.end);
    root = parseJsonText(out);
    cuts++;
  }
  return { text: out, change: `removed the hook (${cuts} cut${cuts === 1 ? '' : 's'})` };
}

/** True when `text` is exactly what install writes where there was no file (uninstall then removes the file). */
export function isCreatedFile(text: string): boolean {
  let root: JsonNode;
  try {
    root = parseJsonText(text);
  } catch {
    return false;
  }
  const only = onlyCommand(root);
  const created = only === null ? null : installInto(null, only);
  return created !== null && 'text' in created && created.text === text;
}

/** The command of the one hook of a file that holds nothing else, else null. */
function onlyCommand(root: JsonNode): string | null {
  const group = root.type === 'object' && root.members.length === 1 ? member(root, 'hooks')?.value : undefined;
  const start = group?.type === 'object' && group.members.length === 1 ? member(group, 'SessionStart')?.value : undefined;
  const first = start?.type === 'array' && start.elements.length === 1 ? member(start.elements[0]!, 'hooks')?.value : undefined;
  const hook = first?.type === 'array' && first.elements.length === 1 ? member(first.elements[0]!, 'command')?.value : undefined;
  return hook?.type === 'string' && isOurCommand(hook.value) ? hook.value : null;
}
