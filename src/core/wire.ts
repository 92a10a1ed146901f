// contract §2: the wire format, version 1, as one set of zod schemas. The TypeScript types
// are inferred from them and docs/wire-format.schema.json is generated from them
// (`npm run schema`), so the three cannot drift apart.
import { z } from 'zod';

export const WIRE_VERSION = 1;

/** Finite number or null: null means "invalidated, not yet recomputed" (contract §2). */
const score = z.number().nullable().describe('finite relevance score, or null when invalidated and not yet recomputed');

export const spanSchema = z
  .looseObject({
    span_id: z.string().describe('unique within a snapshot'),
    text: z.string(),
    score,
    text_sha256: z.string().nullable().describe('64 lowercase hex of sha256(utf8(text)) when the score was computed; null or "" = no binding'),
    tokens: z.number().int().min(0).optional().describe('absent: ceil(code points / 4), marked as estimated'),
    rewrite_count: z.number().int().min(0).optional().describe('rewrites since the last recompute; default 0'),
    derived_from: z.array(z.string()).optional().describe('ids of the spans this one was derived from; default []'),
    pinned: z.boolean().optional().describe('a canary excluded from eviction; default false'),
    role: z.string().optional(),
  })
  .describe('one span of the live context buffer');

export const rewriteSchema = z.looseObject({
  spans_modified: z.number().int().min(0),
  scores_invalidated: z.number().int().min(0),
  modified_span_ids: z.array(z.string()).optional(),
  invalidated_span_ids: z.array(z.string()).optional(),
});

export const thresholdsSchema = z
  .looseObject({
    relevance_tolerance: z.number().min(0).optional(),
    drift_turns: z.number().int().min(1).optional(),
    max_rewrites: z.number().int().min(0).optional(),
    min_scored: z.number().int().min(0).optional(),
    spread_floor: z.number().min(0).optional(),
    collapse_turns: z.number().int().min(1).optional(),
    reference_agreement_floor: z.number().min(-1).max(1).optional(),
    compaction_loss_min: z.number().int().min(1).optional(),
    pressure_threshold: z.number().gt(0).max(1).optional(),
  })
  .describe('threshold overrides of contract §4');

const sessionId = z.string().min(1);

export const sessionHeaderSchema = z
  .looseObject({
    type: z.literal('session'),
    session_id: sessionId,
    title: z.string().optional(),
    started_at: z.string().optional(),
    config: thresholdsSchema.optional(),
  })
  .describe('optional first line of a session');

export const snapshotSchema = z
  .looseObject({
    type: z.literal('snapshot'),
    session_id: sessionId,
    turn: z.number().int(),
    ts: z.string().optional(),
    spans: z.array(spanSchema),
    rewrite: rewriteSchema.optional().describe('absent = nothing reported (0 and 0)'),
    pruned: z.array(z.string()).optional().describe('ids evicted during this turn'),
  })
  .describe('the live buffer at the end of one turn');

export const messageSchema = z.discriminatedUnion('type', [sessionHeaderSchema, snapshotSchema]);

export type Span = z.infer<typeof spanSchema>;
export type Rewrite = z.infer<typeof rewriteSchema>;
export type ThresholdOverrides = z.infer<typeof thresholdsSchema>;
export type SessionHeader = z.infer<typeof sessionHeaderSchema>;
export type Snapshot = z.infer<typeof snapshotSchema>;
export type Message = z.infer<typeof messageSchema>;

// contract §7 compact wire, version 1.1: what a session that declares `"wire": "1.1"` may
// send. Documentation only (the `$defs` of the generated schema): whether a text may be left
// out depends on the session's previous snapshot, which no schema can see, so readers
// validate the expanded snapshot with the version-1 schemas above (src/core/compact.ts).
const compactHeaderSchema = sessionHeaderSchema
  .extend({ wire: z.literal('1.1').describe('declares the compact wire (contract §7) for this session') })
  .describe('a session header declaring the compact wire, version 1.1');
const compactSpanSchema = spanSchema
  .extend({ text: z.string().optional().describe('absent: the text of the span of this id in the snapshot of turn base_turn') })
  .describe('a span of a compact snapshot');
const compactSnapshotSchema = snapshotSchema
  .extend({
    base_turn: z.number().int().optional().describe('the turn of the previous accepted snapshot; required when any span leaves out its text'),
    spans: z.array(compactSpanSchema),
  })
  .describe('a snapshot of a session that declared the compact wire');

export function wireJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `Context Health wire format, version ${WIRE_VERSION}: one message per JSON line`,
    ...z.toJSONSchema(messageSchema, { target: 'draft-2020-12' }),
    $defs: {
      compact_wire_1_1: {
        $comment:
          'contract §7 compact wire (version 1.1): the forms a session declaring "wire": "1.1" may send; readers carry left-out texts forward, then apply the version-1 schema above',
        header: z.toJSONSchema(compactHeaderSchema, { target: 'draft-2020-12' }),
        snapshot: z.toJSONSchema(compactSnapshotSchema, { target: 'draft-2020-12' }),
      },
    },
  };
}
