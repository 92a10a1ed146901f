// Runs the real executable (bin/context-health.mjs) with plain node, as a user would, and
// collects its exit status and output.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'bin/context-health.mjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliInput {
  /** the whole of stdin */
  stdin?: string | Buffer;
  /** writes stdin itself (streaming, or never ending until told); stdin is closed after it */
  feed?: (stdin: NodeJS.WritableStream) => Promise<void>;
  /** node's own options, before the script */
  nodeArgs?: string[];
  /** environment variables added to this process's */
  env?: Record<string, string>;
}

export function runCli(args: string[], input: CliInput = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(input.nodeArgs ?? []), BIN, ...args], {
      cwd: ROOT,
      ...(input.env === undefined ? {} : { env: { ...process.env, ...input.env } }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => {}); // the child may exit before reading everything
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    if (input.feed !== undefined) input.feed(child.stdin).then(() => child.stdin.end(), reject);
    else child.stdin.end(input.stdin);
  });
}
