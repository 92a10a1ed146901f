// Issue 39, "Writes are safe": in a clone, the parsing threads' code is bundled once into
// <tmp>/context-health-<uid>/ and run from there (src/node/lineWorkerCode.ts). That folder is
// in the shared temporary folder: another user who made it first could plant a manifest
// naming a bundle of theirs (run as this user's code) or a link at the temporary name. The
// bundle is used only from a folder of this user's that no one else may write into, and
// written through a fresh O_EXCL|O_NOFOLLOW name renamed into place.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWorkerUrl } from '../../src/node/lineWorkerCode.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** lineWorkerCode.ts's name for a clone's manifest (FNV-1a of its root) */
function hashOf(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

let tmp: string;
let saved: string | undefined;
beforeEach(() => {
  saved = process.env.TMPDIR;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bundle-'));
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  fs.rmSync(tmp, { recursive: true, force: true });
});

const folder = (): string => path.join(tmp, `context-health-${os.userInfo().uid}`);

/** a manifest that any run would take: no inputs to compare, and a bundle that exists */
function plant(dir: string): string {
  const evil = path.join(tmp, 'evil.mjs');
  fs.writeFileSync(evil, 'throw new Error("planted")\n');
  fs.writeFileSync(path.join(dir, `lineWorker.${hashOf(ROOT)}.json`), JSON.stringify({ bundle: evil, inputs: [] }));
  return evil;
}

describe("the parsing threads' bundle in the shared temporary folder", () => {
  it('a folder anyone may write into is not used: a manifest planted there is never followed', async () => {
    fs.mkdirSync(folder());
    fs.chmodSync(folder(), 0o777);
    const evil = plant(folder());
    const url = await lineWorkerUrl();
    expect(url.href).not.toBe(pathToFileURL(evil).href);
    expect(url.href.startsWith(pathToFileURL(folder()).href)).toBe(false);
  });

  it('a link in the folder’s place is not used', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.symlinkSync(elsewhere, folder());
    const evil = plant(elsewhere);
    const url = await lineWorkerUrl();
    expect(url.href).not.toBe(pathToFileURL(evil).href);
    // nothing written through the link: the folder holds the planted manifest alone
    expect(fs.readdirSync(elsewhere)).toEqual([`lineWorker.${hashOf(ROOT)}.json`]);
  });

  it('its own folder is made private, the bundle written there under fresh names, no temporary file left', async () => {
    const url = await lineWorkerUrl();
    expect(url.href.startsWith(pathToFileURL(folder()).href)).toBe(true);
    expect(fs.statSync(folder()).mode & 0o777).toBe(0o700);
    const names = fs.readdirSync(folder());
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(names.some((n) => /^lineWorker\.[0-9a-f]+\.mjs$/.test(n))).toBe(true);
    // a second run takes the bundle made by the first
    expect((await lineWorkerUrl()).href).toBe(url.href);
  }, 30_000);
});
