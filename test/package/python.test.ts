// Issue 22: the Python client is a package. Its wheel is built offline (no PyPI here) with
// `pip wheel --no-deps --no-build-isolation`, installed into a fresh venv, and that venv's
// python, run outside the clone, streams a sample into a relay with it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPackagingPython } from '../../scripts/python-packaging.mjs';
import { relaysPerTest, tempDir, transcriptLines } from '../relay/helpers.ts';
import { ROOT, run } from './installed.ts';

const relay = relaysPerTest();
const SAMPLE = path.join(ROOT, 'public/samples/drift-and-orphans.jsonl');
let dir: string;
let venvPython: string;

async function must(cmd: string, args: string[], cwd: string): Promise<string> {
  const r = await run(cmd, args, { cwd, timeoutMs: 300_000, env: { PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  // scripts/ensure-tools.mjs python-packaging (npm run test:unit) finds or installs it
  const python = findPackagingPython();
  if (python === null) throw new Error('no python3 with setuptools, wheel, pip and venv: run node scripts/ensure-tools.mjs python-packaging');
  dir = tempDir('ch-python-package-');
  // a copy, so that the build's egg-info lands there and not in the clone
  fs.cpSync(path.join(ROOT, 'clients/python'), path.join(dir, 'python'), { recursive: true });
  await must(python, ['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', './python', '-w', 'wheels'], dir);
  await must(python, ['-m', 'venv', 'venv'], dir);
  venvPython = path.join(dir, 'venv', 'bin', 'python');
  const wheel = fs.readdirSync(path.join(dir, 'wheels')).find((f) => f.endsWith('.whl'))!;
  await must(venvPython, ['-m', 'pip', 'install', '--no-index', '--no-deps', path.join('wheels', wheel)], dir);
}, 600_000);

afterAll(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the Python client, pip-installed', () => {
  it('is the installed package, with its version and typing marker', async () => {
    const out = await must(
      venvPython,
      [
        '-c',
        'import json, os, context_health_client as c; d = os.path.dirname(c.__file__); print(json.dumps([c.__version__, d, os.path.exists(os.path.join(d, "py.typed"))]))',
      ],
      dir,
    );
    const [version, where, typed] = JSON.parse(out) as [string, string, boolean];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(where.startsWith(path.join(dir, 'venv'))).toBe(true);
    expect(typed).toBe(true);
  });

  it('streams a sample into a relay', async () => {
    const r = await relay();
    const script = `
import json, sys
from context_health_client import RelayClient
client = RelayClient(sys.argv[1], give_up_after=60)
sent = 0
with open(sys.argv[2], encoding="utf-8") as f:
    for line in f:
        if line.strip():
            client.send(json.loads(line))
            sent += 1
client.close()
print(sent)
`;
    const out = await must(venvPython, ['-c', script, r.url, SAMPLE], dir);
    const lines = fs.readFileSync(SAMPLE, 'utf8').trim().split('\n');
    expect(Number(out.trim())).toBe(lines.length);
    const sessionId = (JSON.parse(lines[0]!) as { session_id: string }).session_id;
    expect((await transcriptLines(r.url, sessionId)).length).toBe(lines.length);
  });
});
