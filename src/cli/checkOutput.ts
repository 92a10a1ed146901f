// What `check` prints for one file: the contract §6 object with --json, else the human report
// and the adapter's note (docs/adapters.md). The JSON is written in pieces (jsonPieces.ts), so
// a report of millions of turns never has to be one string.
import type { Writable } from 'node:stream';
import { adapterJson, adapterNote } from './adapterNote.ts';
import type { CheckResult } from './check.ts';
import { humanOutput } from './humanOutput.ts';
import { writeJsonPieces, type PieceCount } from './jsonPieces.ts';
import { writeAll } from './output.ts';

export interface CheckShown {
  json: boolean;
  /** the file's name in the human output ('stdin' for -) */
  source: string;
  /** tests: counts the writes of the JSON (jsonPieces.ts) */
  count?: PieceCount;
}

/** contract §6 (+ §7 `adapter`): the object `check FILE --json` prints. */
export function checkJson(result: CheckResult): object {
  return { ...result.report, ...adapterJson(result.adapter) };
}

export async function writeCheckOutput(stream: Writable, result: CheckResult, shown: CheckShown): Promise<void> {
  if (shown.json) await writeJsonPieces(stream, checkJson(result), '\n', shown.count);
  else await writeAll(stream, humanOutput(result.report, shown.source, result.titles, result.pressureThresholds) + adapterNote(result.adapter));
}
