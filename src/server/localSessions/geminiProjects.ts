// The project folders Gemini CLI knows, to name a Gemini CLI session's project: its session
// file names only `projectHash`, a sha256 of the folder (docs/relay.md "Local sessions").
// Gemini CLI keeps a registry beside its tmp folder, `<home>/.gemini/projects.json`
// (`{"projects": {"<absolute folder>": "<short id>"}}`, gemini-cli projectRegistry.ts), and
// since it named its project folders by that short id instead of the hash, a marker file
// `tmp/<short id>/.project_root` holding the folder. Both are read here, bounded: they are
// files on the user's disk, not the product's.
import fs from 'node:fs';
import path from 'node:path';

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
  const registry = await readSmall(path.join(path.dirname(tmpRoot), 'projects.json'), MAX_REGISTRY_BYTES);
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
  const dirs = await fs.promises.readdir(tmpRoot, { withFileTypes: true }).catch(() => []);
  let read = 0;
  for (const d of dirs) {
    if (!d.isDirectory() || read >= MAX_MARKERS) continue;
    read++;
    const marker = (await readSmall(path.join(tmpRoot, d.name, '.project_root'), MAX_MARKER_BYTES))?.trim();
    if (marker !== undefined && path.isAbsolute(marker) && !marker.includes('\n')) roots.push({ folder: marker, shortId: d.name });
  }
  return roots;
}

/** A regular file's text when it is at most `max` bytes; null otherwise or when it cannot be read. */
async function readSmall(file: string, max: number): Promise<string | null> {
  try {
    const st = await fs.promises.stat(file);
    if (!st.isFile() || st.size > max) return null;
    return await fs.promises.readFile(file, 'utf8');
  } catch {
    return null;
  }
}
