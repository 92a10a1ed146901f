// contract §2: the wire schema's own verdict, asked only of a value validate.ts's fast path
// refused (validateMessage), to name the first reason precisely. A module of its own so that
// the compiled command loads zod only then: `npm pack` builds this module alone into a
// CommonJS file that src/node/schemaRefusalLazy.ts loads on the first refusal
// (scripts/build-package.ts; docs/engine.md "zod on the first refusal"). Everything else
// (the dashboard, a clone's sources) imports it as it is.
import type { z } from 'zod';
import { messageSchema } from './wire.ts';

/** Why the schema refuses `value` (its first issue, undefined if it names none), or null: it accepts it. */
export function schemaRefusal(value: unknown): { issue: z.core.$ZodIssue | undefined } | null {
  const parsed = messageSchema.safeParse(value);
  return parsed.success ? null : { issue: parsed.error.issues[0] };
}
