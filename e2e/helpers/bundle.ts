// What the built dashboard (dist/) is made of, read from its source maps: which chunk
// files carry a given npm package. Tests name packages, not hashed file names.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './relay.ts';

/** The file names (e.g. `recharts-DVabZ760.js`) of the dist/assets chunks holding code of any of `packages`. */
export function chunksHolding(packages: readonly string[]): string[] {
  const assets = path.join(ROOT, 'dist', 'assets');
  const out: string[] = [];
  for (const name of fs.readdirSync(assets)) {
    if (!name.endsWith('.js.map')) continue;
    const map = JSON.parse(fs.readFileSync(path.join(assets, name), 'utf8')) as { sources: string[] };
    if (map.sources.some((s) => packages.some((p) => s.includes(`node_modules/${p}/`)))) out.push(name.slice(0, -'.map'.length));
  }
  return out;
}
