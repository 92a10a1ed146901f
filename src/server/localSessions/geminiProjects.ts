// The project folders Gemini CLI knows, to name a Gemini CLI session's project: its session
// file names only `projectHash`, a sha256 of the folder (docs/relay.md "Local sessions").
// Gemini CLI keeps a registry beside its tmp folder, `<home>/.gemini/projects.json`
// (`{"projects": {"<absolute folder>": "<short id>"}}`, gemini-cli projectRegistry.ts), and
// since it named its project folders by that short id instead of the hash, a marker file
// `tmp/<short id>/.project_root` holding the folder. Both are read here as every file of the
// agents' folders is (docs/security.md "Local sessions"): opened without following a link and
// without blocking, read through the checked descriptor only when it is a regular file (a
// file only when it is inside its folder, ~/.gemini or tmp), bounded in size; the tmp folder is streamed,
// not listed whole, and at most MAX_MARKERS of its folders are looked in.
import fs from 'node:fs';
import path from 'node:path';
import { readEventFile } from '../../node/openhandsFolder.ts';

/** The registry is a small map; anything larger is not read. */
const MAX_REGISTRY_BYTES = 1 << 20;
/** A marker holds one path. */
const MAX_MARKER_BYTES = 4096;
/** Project folders under tmp whose marker is read, at most. */
const MAX_MARKERS = 2000;

/** A project folder Gemini CLI knows, and the short id its tmp folder is named by (null: none known). */
export interface GeminiProject {
  folder: string;
  shortId: string | null;
}

/** The absolute folders named by Gemini CLI's registry and markers for the tmp folder `tmpRoot`; never throws. */
export async function geminiProjectRoots(tmpRoot: string): Promise<GeminiProject[]> {
  const roots: GeminiProject[] = [];
  const geminiDir = path.dirname(tmpRoot);
  const registry = await readSmall(path.join(geminiDir, 'projects.json'), MAX_REGISTRY_BYTES, await fs.promises.realpath(geminiDir).catch(() => null));
  if (registry !== null) {
    try {
      const parsed: unknown = JSON.parse(registry);
      const projects = typeof parsed === 'object' && parsed !== null ? (parsed as { projects?: unknown }).projects : undefined;
      if (typeof projects === 'object' && projects !== null && !Array.isArray(projects)) {
        for (const [folder, id] of Object.entries(projects)) if (path.isAbsolute(folder)) roots.push({ folder, shortId: typeof id === 'string' ? id : null });
      }
    } catch {
      // a registry being written, or not Gemini CLI's: the markers may still say
    }
  }
  const inside = await fs.promises.realpath(tmpRoot).catch(() => null);
  if (inside === null) return roots;
  let dir: fs.Dir | null = null;
  try {
    dir = await fs.promises.opendir(tmpRoot, { bufferSize: 64 });
    let looked = 0;
    for await (const d of dir) {
      // a link is not a project folder Gemini CLI made (isDirectory does not follow it)
      if (!d.isDirectory()) continue;
      if (++looked > MAX_MARKERS) break;
      const marker = (await readSmall(path.join(tmpRoot, d.name, '.project_root'), MAX_MARKER_BYTES, inside))?.trim();
      if (marker !== undefined && path.isAbsolute(marker) && !marker.includes('\n')) roots.push({ folder: marker, shortId: d.name });
    }
  } catch {
    // a folder that cannot be read names nothing more
  } finally {
    // the iterator closes a folder it finished; one left by `break` or an error is closed here
    await dir?.close().catch(() => undefined);
  }
  return roots;
}

/** A regular file's text, read through its checked descriptor when it is inside the real folder `inside` and at most `max` bytes; null otherwise. */
async function readSmall(file: string, max: number, inside: string | null): Promise<string | null> {
  if (inside === null) return null;
  const read = await readEventFile(file, max, inside);
  return 'bytes' in read ? read.bytes.toString('utf8') : null;
}
