// In the compiled package only, in src/core/schemaRefusal.ts's place (scripts/build-package.ts):
// zod and the wire schemas are ~470 kB of JavaScript that every `check` paid to compile and
// run (~60 ms, ~6 MiB per thread), though only a line the fast path refuses asks the schema.
// They are built into build/cli/schemaRefusal.cjs beside the chunks and loaded here, in the
// same turn, on the first refusal.
import { createRequire } from 'node:module';
import type { schemaRefusal as SchemaRefusal } from '../core/schemaRefusal.ts';

const load = createRequire(import.meta.url);
let compiled: { schemaRefusal: typeof SchemaRefusal } | null = null;

export function schemaRefusal(value: unknown): ReturnType<typeof SchemaRefusal> {
  compiled ??= load('./schemaRefusal.cjs') as { schemaRefusal: typeof SchemaRefusal };
  return compiled.schemaRefusal(value);
}
