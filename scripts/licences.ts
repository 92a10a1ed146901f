// The licence texts of the npm packages whose code the package's bundles carry
// (scripts/build-package.ts): their licences (MIT, ISC, BSD, Apache-2.0) ask for the notice
// to travel with the code, and a bundle no longer has their node_modules folders.
import fs from 'node:fs';
import path from 'node:path';

/** `node_modules/a/node_modules/@s/b/x.js` → `node_modules/a/node_modules/@s/b` */
function packageDir(input: string): string | null {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const scoped = parts[at + 1]!.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
}

export function bundledLicences(root: string, inputs: string[]): string {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const dir = packageDir(input);
    if (dir !== null) dirs.add(dir);
  }
  const sections: string[] = [];
  const seen = new Set<string>();
  for (const dir of [...dirs].sort()) {
    const full = path.join(root, dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(full, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const id = `${pkg.name}@${pkg.version}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const file = fs.readdirSync(full).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text =
      file === undefined
        ? `(no licence file in the package; package.json says: ${pkg.license ?? 'nothing'})`
        : fs.readFileSync(path.join(full, file), 'utf8').trim();
    sections.push(`${id} (${pkg.license ?? 'licence not stated'})\n\n${text}\n`);
  }
  return `The bundles in build/cli carry code from these npm packages, under these licences.\n\n${sections.join('\n' + '-'.repeat(72) + '\n\n')}`;
}
