// The adapter tests' way in: a transcript's text through the pipeline line by line (a final
// newline makes no extra line, as the line splitter reads it), everything it hands on kept.
import type { Snapshot } from '../../core/wire.ts';
import { TranscriptPipeline, type PipelineOptions } from './pipeline.ts';

export function convertText(text: string, options: PipelineOptions = {}) {
  const values: Record<string, unknown>[] = [];
  const texts: [string, number][] = [];
  const errors: [number, string][] = [];
  const pipeline = new TranscriptPipeline(
    {
      text: (t, line) => texts.push([t, line]),
      value: (v) => values.push(v as Record<string, unknown>),
      error: (line, message) => errors.push([line, message]),
    },
    options,
  );
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  const snapshots = values.filter((v): v is Snapshot => v.type === 'snapshot');
  return { values, texts, errors, snapshots, summary: pipeline.summary() };
}
