// OTLP/JSON read one span at a time, from the body's bytes (docs/security.md "Bounded
// amplification"). `JSON.parse` of a whole export held the body as a string and every span
// as objects at once. Here the body is first checked as JSON without building anything
// (validateJson), then the request's envelopes (the request, each ResourceSpans, each
// ScopeSpans) are walked as byte ranges, as protobuf.ts walks the protobuf ones, and each
// span (and each resource) alone is parsed with `JSON.parse` and handed on, so what is read
// is what `JSON.parse` of the whole body would have given, one span at a time.
//
// Why not src/ingest/jsonDocument.ts (JsonDocumentStream): it streams the elements of one
// array member of the top-level object, as text, line by line. An export nests its spans
// three arrays deep (resourceSpans → scopeSpans → spans) in what is usually one line, and
// a ResourceSpans' `resource` may come after its `scopeSpans`; streamed level by level each
// level would hold its element's text again (the body three times over), and the resource
// would have to wait for the spans. Byte ranges over the one body hold nothing but the
// span being read.
import { isUtf8 } from 'node:buffer';
import { attributes, type Attributes } from '../../ingest/adapters/otlp/model.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** the longest member name decoded: every name read here is shorter, even written with \u escapes */
const MAX_NAME_BYTES = 128;

const utf8 = new TextDecoder('utf-8');

/** A body that is not JSON: where (a byte offset) and why. */
export class JsonSyntaxError extends Error {}

/** One span of the request, parsed, with its resource's attributes and its place. */
export interface JsonRequestSpan {
  span: unknown;
  resource: Attributes;
  /** `resourceSpans[r].scopeSpans[s].spans[i]` */
  where: string;
}

/**
 * Where the body's JSON value starts (after a byte order mark, which the UTF-8 decoding of
 * the whole body dropped too). Throws JsonSyntaxError on a body `JSON.parse` would refuse:
 * invalid UTF-8 (with the message TextDecoder gave), or not exactly one JSON value.
 */
export function checkJsonBody(body: Uint8Array): number {
  if (!isUtf8(body)) throw new JsonSyntaxError('The encoded data was not valid for encoding utf-8');
  const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  validateJson(body, start);
  return space(body, start);
}

/**
 * The spans of the request the decode would count (decoding.ts, before the --max-spans
 * check): those in `resourceSpans[].scopeSpans[].spans`, by their camelCase names only,
 * as the count of a parsed request always was.
 */
export function countJsonRequestSpans(body: Uint8Array, root: number): number {
  let n = 0;
  if (body[root] !== OPEN_OBJECT) return 0;
  const [resources] = members(body, root, ['resourceSpans']);
  if (resources === null || body[resources] !== OPEN_ARRAY) return 0;
  elements(body, resources, (r) => {
    if (body[r] !== OPEN_OBJECT) return;
    const [scopes] = members(body, r, ['scopeSpans']);
    if (scopes === null || body[scopes] !== OPEN_ARRAY) return;
    elements(body, scopes, (s) => {
      if (body[s] !== OPEN_OBJECT) return;
      const [spans] = members(body, s, ['spans']);
      if (spans !== null && body[spans] === OPEN_ARRAY) elements(body, spans, () => n++);
    });
  });
  return n;
}

/**
 * Each span of a checked body (checkJsonBody), in order, as model.ts readTraceRequest reads
 * a parsed request: camelCase or snake_case names (the camelCase one when both are there),
 * the last of a repeated name, a ResourceSpans that is not an object rejected, what is not
 * an array skipped. Throws, as readTraceRequest does, only when the request is not one.
 */
export function forEachJsonRequestSpan(
  body: Uint8Array,
  root: number,
  visit: (s: JsonRequestSpan) => void,
  reject: (where: string, message: string) => void,
): void {
  if (body[root] !== OPEN_OBJECT) throw new Error('the body is not an ExportTraceServiceRequest: expected a JSON object with "resourceSpans"');
  const [camel, snake] = members(body, root, ['resourceSpans', 'resource_spans']);
  const resources = either(camel, snake);
  if (resources === null || isNull(body, resources)) return;
  if (body[resources] !== OPEN_ARRAY) throw new Error('"resourceSpans" is not an array');
  let r = 0;
  elements(body, resources, (rs) => {
    const index = r++;
    if (body[rs] !== OPEN_OBJECT) return reject(`resourceSpans[${index}]`, 'not an object');
    const [resourceAt, scopeCamel, scopeSnake] = members(body, rs, ['resource', 'scopeSpans', 'scope_spans']);
    let resource: Attributes = {};
    if (resourceAt !== null && body[resourceAt] === OPEN_OBJECT) {
      resource = attributes((parse(body, resourceAt, skip(body, resourceAt)) as { attributes?: unknown }).attributes);
    }
    const scopes = either(scopeCamel, scopeSnake);
    if (scopes === null || body[scopes] !== OPEN_ARRAY) return;
    let s = 0;
    elements(body, scopes, (ss) => {
      const scope = s++;
      const spans = body[ss] === OPEN_OBJECT ? members(body, ss, ['spans'])[0] : null;
      if (spans === null || body[spans] !== OPEN_ARRAY) return;
      let i = 0;
      elements(body, spans, (at, end) => {
        visit({ span: parse(body, at, end), resource, where: `resourceSpans[${index}].scopeSpans[${scope}].spans[${i++}]` });
      });
    });
  });
}

/** The value in body[at, end) (a checked body), parsed alone. */
function parse(body: Uint8Array, at: number, end: number): unknown {
  return JSON.parse(utf8.decode(body.subarray(at, end)));
}

/**
 * Where the values of the object's members named `names` start (each the last of that
 * name: JSON.parse keeps the last), null for a name it lacks; one pass over the object.
 */
function members<const N extends readonly string[]>(body: Uint8Array, object: number, names: N): { [K in keyof N]: number | null } {
  const found = names.map(() => null) as (number | null)[] as { [K in keyof N]: number | null };
  let i = space(body, object + 1);
  if (body[i] === CLOSE_OBJECT) return found;
  for (;;) {
    const nameEnd = stringEnd(body, i);
    const valueAt = space(body, space(body, nameEnd) + 1);
    if (nameEnd - i <= MAX_NAME_BYTES) {
      const k = names.indexOf(nameOf(body, i, nameEnd));
      if (k !== -1) (found as (number | null)[])[k] = valueAt;
    }
    i = space(body, skip(body, valueAt));
    if (body[i] !== COMMA) return found;
    i = space(body, i + 1);
  }
}

/** model.ts field(): the camelCase member if there is one, else the snake_case one. */
function either(camel: number | null, snake: number | null): number | null {
  return camel ?? snake;
}

function nameOf(body: Uint8Array, start: number, end: number): string {
  // the common case, a name without escapes, without JSON.parse
  const raw = body.subarray(start + 1, end - 1);
  return raw.includes(BACKSLASH) ? (JSON.parse(utf8.decode(body.subarray(start, end))) as string) : utf8.decode(raw);
}

/** Each element of the array at `array`: where it starts and ends. */
function elements(body: Uint8Array, array: number, visit: (at: number, end: number) => void): void {
  let i = space(body, array + 1);
  if (body[i] === CLOSE_ARRAY) return;
  for (;;) {
    const end = skip(body, i);
    visit(i, end);
    i = space(body, end);
    if (body[i] !== COMMA) return;
    i = space(body, i + 1);
  }
}

function isNull(body: Uint8Array, at: number): boolean {
  return body[at] === 0x6e;
}

/** The end of the value starting at `at`, in a body already checked (validateJson). */
function skip(body: Uint8Array, at: number): number {
  const c = body[at];
  if (c === QUOTE) return stringEnd(body, at);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) {
    let i = at + 1;
    while (i < body.length && !isDelimiter(body[i]!)) i++;
    return i;
  }
  let depth = 0;
  let i = at;
  for (;;) {
    const b = body[i]!;
    if (b === QUOTE) {
      i = stringEnd(body, i);
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && --depth === 0) return i + 1;
    i++;
  }
}

/** The end (past the closing quote) of the string whose opening quote is at `at`, in a checked body. */
function stringEnd(body: Uint8Array, at: number): number {
  let from = at + 1;
  for (;;) {
    const q = body.indexOf(QUOTE, from);
    let k = 0;
    while (body[q - 1 - k] === BACKSLASH) k++;
    if (k % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function space(body: Uint8Array, i: number): number {
  while (i < body.length && isSpace(body[i]!)) i++;
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c);
}

const IN_OBJECT = 0;
const IN_ARRAY = 1;

/**
 * Checks that body[start..] is exactly one JSON value (RFC 8259, as JSON.parse reads it)
 * without building it: a loop with a stack of the open containers, so any nesting is
 * checked without recursion. Throws JsonSyntaxError naming the byte offset and what was
 * expected there.
 */
export function validateJson(body: Uint8Array, start: number): void {
  const stack: number[] = [];
  let i = start;
  const n = body.length;
  value: for (;;) {
    i = space(body, i);
    if (i >= n) throw ended(i, 'a value');
    const c = body[i]!;
    if (c === OPEN_OBJECT) {
      i = space(body, i + 1);
      if (body[i] === CLOSE_OBJECT) i++;
      else {
        stack.push(IN_OBJECT);
        i = memberName(body, i);
        continue value;
      }
    } else if (c === OPEN_ARRAY) {
      i = space(body, i + 1);
      if (body[i] === CLOSE_ARRAY) i++;
      else {
        stack.push(IN_ARRAY);
        continue value;
      }
    } else if (c === QUOTE) i = checkString(body, i);
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = checkNumber(body, i);
    else i = checkLiteral(body, i);
    // after a value: a separator, the end of its container, or the end of the body
    for (;;) {
      i = space(body, i);
      if (stack.length === 0) {
        if (i < n) throw unexpected(body, i, 'the end of the body after the JSON value');
        return;
      }
      const inObject = stack[stack.length - 1] === IN_OBJECT;
      if (i >= n) throw ended(i, inObject ? ', or }' : ', or ]');
      const b = body[i]!;
      if (b === COMMA) {
        i = space(body, i + 1);
        if (inObject) i = memberName(body, i);
        continue value;
      }
      if (b === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        stack.pop();
        i++;
        continue;
      }
      throw unexpected(body, i, inObject ? ', or }' : ', or ]');
    }
  }
}

/** A member's name and its colon, from `i`; returns where its value may start. */
function memberName(body: Uint8Array, i: number): number {
  if (i >= body.length) throw ended(i, 'a member name');
  if (body[i] !== QUOTE) throw unexpected(body, i, 'a member name (a string)');
  i = space(body, checkString(body, i));
  if (i >= body.length) throw ended(i, ':');
  if (body[i] !== COLON) throw unexpected(body, i, ':');
  return i + 1;
}

function checkString(body: Uint8Array, at: number): number {
  let i = at + 1;
  for (;;) {
    if (i >= body.length) throw ended(i, 'the end of the string that starts at byte ' + at);
    const c = body[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) throw new JsonSyntaxError(`a control character (0x${c.toString(16).padStart(2, '0')}) inside a string at byte ${i}`);
    if (c === BACKSLASH) {
      const e = body[i + 1];
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) if (!isHex(body[i + k])) throw new JsonSyntaxError(`a \\u escape without 4 hex digits at byte ${i}`);
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) {
        throw new JsonSyntaxError(`an invalid escape in a string at byte ${i}`);
      }
      i += 2;
      continue;
    }
    i++;
  }
}

function checkNumber(body: Uint8Array, at: number): number {
  let i = at;
  if (body[i] === 0x2d) i++;
  if (body[i] === 0x30) i++;
  else if (isDigit(body[i])) while (isDigit(body[i])) i++;
  else throw bad(body, at, i);
  if (body[i] === 0x2e) {
    i++;
    if (!isDigit(body[i])) throw bad(body, at, i);
    while (isDigit(body[i])) i++;
  }
  if (body[i] === 0x65 || body[i] === 0x45) {
    i++;
    if (body[i] === 0x2b || body[i] === 0x2d) i++;
    if (!isDigit(body[i])) throw bad(body, at, i);
    while (isDigit(body[i])) i++;
  }
  return i;
}

const LITERALS = ['true', 'false', 'null'].map((w) => Buffer.from(w));

function checkLiteral(body: Uint8Array, at: number): number {
  for (const word of LITERALS) {
    if (body[at] === word[0] && word.every((b, k) => body[at + k] === b)) return at + word.length;
  }
  throw unexpected(body, at, 'a value');
}

function bad(body: Uint8Array, at: number, i: number): JsonSyntaxError {
  return i >= body.length
    ? ended(i, 'the rest of the number that starts at byte ' + at)
    : unexpected(body, i, `a digit of the number that starts at byte ${at}`);
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

function unexpected(body: Uint8Array, i: number, expected: string): JsonSyntaxError {
  const c = body[i]!;
  const what = c >= 0x20 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `byte 0x${c.toString(16).padStart(2, '0')}`;
  return new JsonSyntaxError(`unexpected ${what} at byte ${i}, expected ${expected}`);
}

function ended(i: number, expected: string): JsonSyntaxError {
  return new JsonSyntaxError(`the body ends at byte ${i}, expected ${expected}`);
}
