// What `check` prints for one file: the contract §6 object with --json, else the human report
// and the adapter's note (docs/adapters.md).
import type { Writable } from 'node:stream';
import { adapterJson, adapterNote } from './adapterNote.ts';
import type { CheckResult } from './check.ts';
import { humanOutput } from './humanOutput.ts';
import { writeAll } from './output.ts';

export interface CheckShown {
  json: boolean;
  /** the file's name in the human output ('stdin' for -) */
  source: string;
}

export async function writeCheckOutput(stream: Writable, result: CheckResult, shown: CheckShown): Promise<void> {
  const text = shown.json
    ? JSON.stringify({ ...result.report, ...adapterJson(result.adapter) }) + '\n'
    : humanOutput(result.report, shown.source, result.titles) + adapterNote(result.adapter);
  await writeAll(stream, text);
}
