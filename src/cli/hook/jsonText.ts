// docs/hooks.md "Install": a settings file is edited as text, never re-serialised, so every
// byte outside the edit stays as it was (key order, spacing, CRLF, a trailing newline). This
// module maps JSON text to the spans of its values: enough to find a member or an element,
// and where to insert or cut. It accepts only JSON (RFC 8259): a file with comments or
// trailing commas is not JSON, and the caller leaves it untouched.

export type JsonNode =
  | { type: 'object'; start: number; end: number; members: JsonMember[] }
  | { type: 'array'; start: number; end: number; elements: JsonNode[] }
  | { type: 'string'; start: number; end: number; value: string }
  | { type: 'scalar'; start: number; end: number };

export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export class JsonTextError extends Error {}

/** The spans of `text`'s one JSON value (leading and trailing white space allowed). */
export function parseJsonText(text: string): JsonNode {
  // the grammar is JSON.parse's: it also words the error
  try {
    JSON.parse(text);
  } catch (e) {
    throw new JsonTextError((e as Error).message);
  }
  let at = 0;
  const ws = (): void => {
    while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  };
  const str = (): { type: 'string'; start: number; end: number; value: string } => {
    const start = at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return { type: 'string', start, end: at, value: JSON.parse(text.slice(start, at)) as string };
  };
  const value = (): JsonNode => {
    ws();
    const start = at;
    const c = text[at];
    if (c === '"') return str();
    if (c === '{') {
      at++;
      const members: JsonMember[] = [];
      ws();
      while (text[at] !== '}') {
        ws();
        const key = str();
        ws();
        at++; // ':'
        members.push({ key: key.value, keyStart: key.start, value: value() });
        ws();
        if (text[at] === ',') at++;
        ws();
      }
      at++;
      return { type: 'object', start, end: at, members };
    }
    if (c === '[') {
      at++;
      const elements: JsonNode[] = [];
      ws();
      while (text[at] !== ']') {
        elements.push(value());
        ws();
        if (text[at] === ',') at++;
        ws();
      }
      at++;
      return { type: 'array', start, end: at, elements };
    }
    while (at < text.length && !',]} \t\r\n'.includes(text[at]!)) at++;
    return { type: 'scalar', start, end: at };
  };
  return value();
}

/** The member `key` of an object node, if any. */
export function member(node: JsonNode, key: string): JsonMember | undefined {
  return node.type === 'object' ? node.members.find((m) => m.key === key) : undefined;
}

/** The white space that starts the line `pos` is on. */
export function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const m = /^[ \t]*/.exec(text.slice(lineStart, pos));
  return m === null ? '' : m[0];
}
