// The byte-identity record of `check` (issue 37): the sha256 of `check FILE --json` and of the
// human output, for every sample (public/samples), every fixture (test/fixtures) and two
// generated bench transcripts (a Claude Code session with compactions and file reads, and a
// simulated wire session with every fault), each under the default scorer and `--scorer both`
// (which runs the reference scorer over wire sessions too). Recorded once before the
// speed-ups of issue 37 into checkDigests.json:
//   node --import tsx test/cli/checkDigests.ts --write
// and compared by checkDigests.test.ts after every change: a speed-up may not move one byte.
// The human output is made as the CLI makes it, without the reference scores it does not read.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { claudeCodeTranscript } from '../../bench/claudeCodeTranscript.ts';
import { benchTranscript } from '../../bench/transcripts.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { writeCheckOutput } from '../../src/cli/checkOutput.ts';
import { openHandsFolder } from '../../src/node/openhandsFolder.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIGESTS = path.join(import.meta.dirname, 'checkDigests.json');

export function inputs(): string[] {
  // every file, in sub-folders too (public/samples/agents); an OpenHands conversation's folder is one input
  const list = (dir: string): string[] =>
    fs
      .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.name !== 'README.md' && !e.name.endsWith('.provenance.md'))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((e) => {
        const rel = path.join(dir, e.name);
        if (!e.isDirectory() || openHandsFolder(path.join(ROOT, rel)) !== null) return [rel];
        return list(rel);
      });
  return [...list('public/samples'), ...list('test/fixtures/adapters')];
}

/** The generated transcripts (bench/out, cached): named by their parameters, so the same bytes each time. */
export function generated(): string[] {
  return [claudeCodeTranscript(400, 1500, true), benchTranscript(120, 40, 160)].map((f) => path.relative(ROOT, f));
}

class Collect extends Writable {
  readonly hash = crypto.createHash('sha256');
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.hash.update(chunk);
    done();
  }
}

export async function checkDigests(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of [...inputs(), ...generated()]) {
    for (const scorer of ['auto', 'both'] as const) {
      for (const json of [true, false]) {
        // as the CLI runs it: the human output reads no reference score of an agent's session,
        // nor any per-span figure, so its run leaves the scores out and may abridge the
        // snapshots, and must print the bytes recorded when both were made in full
        const result = await checkTranscript(path.join(ROOT, file), {
          userThresholds: {},
          scorer,
          audit: true,
          ...(json ? {} : { readsReferenceScores: false, readsSpanFigures: false }),
        });
        const sink = new Collect();
        await writeCheckOutput(sink, result, { json, source: path.join(ROOT, file) === '-' ? 'stdin' : file });
        out[`${file} --scorer ${scorer}${json ? ' --json' : ''}`] = sink.hash.digest('hex');
      }
    }
  }
  return out;
}

if (process.argv.includes('--write')) {
  fs.writeFileSync(DIGESTS, JSON.stringify(await checkDigests(), null, 2) + '\n');
}
