// The adapters' view of parsed JSON: a record they read fields of, and the test for one.
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field's value, or "" for anything else. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
