// The derived_from graph of one turn's live spans, laid out with dagre in the Worker so
// the main thread only draws. Missing parents (contract §4 orphaned_parent) become ghost
// nodes; a parent gone from the live context but declared archived (§8.2, what a compaction
// replaced in an imported session) is an archived node, not a fault. Spans with no derivation edge are counted, not drawn; a very large graph keeps
// the components that hold orphans first.
import dagre from '@dagrejs/dagre';
import type { GraphEdge, GraphNode, LineageGraphData } from './protocol.ts';
import { bindingName, FLAG_PINNED, type TurnColumnStore } from '../results/store.ts';
import { appendAll } from '../core/arrays.ts';

export const MAX_GRAPH_NODES = 160;
/**
 * A span citing more archived parents than this gets them as one node ("143 archived
 * parents"): a compaction's summary derives from everything it replaced, often hundreds of
 * spans, which drawn one by one fill a row no one can read, and none of them is a fault.
 */
export const MAX_ARCHIVED_SHOWN = 6;
/** the id of the node standing for a span's archived parents (no control characters: React Flow puts ids in the DOM; a clash with a span id would only merge two nodes) */
export const archivedGroupId = (citer: string): string => `⟪archived parents of⟫${citer}`;
// wide enough for a label's first words (`Read src/cache.ts`, a prompt's opening)
const NODE_W = 168;
const NODE_H = 30;

interface LiveSpan {
  id: string;
  pinned: boolean;
  binding: number;
  parents: readonly string[];
}

export function liveSpansAt(store: TurnColumnStore, t: number): LiveSpan[] | null {
  const r = store.rowsOf(t);
  if (r === null) return null;
  const out: LiveSpan[] = [];
  for (let row = r.start; row < r.end; row++) {
    const d = store.rows.read(row);
    const info = store.spans[d.span]!;
    out.push({ id: info.id, pinned: (d.flags & FLAG_PINNED) !== 0, binding: d.binding, parents: d.parentsVer >= 0 ? info.parents[d.parentsVer]! : [] });
  }
  return out;
}

export function lineageGraph(store: TurnColumnStore, t: number): LineageGraphData | null {
  const live = liveSpansAt(store, t);
  if (live === null) return null;
  const liveIds = new Map(live.map((s) => [s.id, s]));
  const edges: GraphEdge[] = [];
  const ghosts = new Set<string>();
  const citers = new Set<string>();
  const seenEdge = new Set<string>();
  for (const s of live) {
    for (const p of s.parents) {
      if (p === s.id) continue;
      const key = `${p}\u0000${s.id}`;
      if (seenEdge.has(key)) continue;
      seenEdge.add(key);
      // contract §8.2: a parent gone from the live context but declared archived is not missing
      const gone = !liveIds.has(p);
      const archived = gone && store.archivedBy(p, t);
      const missing = gone && !archived;
      if (missing) {
        ghosts.add(p);
        citers.add(s.id);
      }
      edges.push({ source: p, target: s.id, missing, archived });
    }
  }
  const groups = groupArchived(edges);
  const connected = new Set<string>();
  for (const e of edges) {
    connected.add(e.source);
    connected.add(e.target);
  }
  const isolated = live.length - [...connected].filter((id) => liveIds.has(id)).length;

  let keep = connected;
  let omitted = 0;
  if (connected.size > MAX_GRAPH_NODES) {
    keep = componentsFirst(edges, [...ghosts, ...connected], MAX_GRAPH_NODES);
    omitted = connected.size - keep.size;
  }
  const keptEdges = edges.filter((e) => keep.has(e.source) && keep.has(e.target));

  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 36, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of keep) g.setNode(id, { width: NODE_W, height: NODE_H });
  for (const e of keptEdges) g.setEdge(e.source, e.target);
  dagre.layout(g);

  const nodes: GraphNode[] = [];
  for (const id of keep) {
    const pos = g.node(id);
    const span = liveIds.get(id);
    // a group of archived parents (groupArchived) is no span: it has no info, and is "gone"
    const members = groups.get(id);
    const gone = span === undefined;
    const ghost = gone && ghosts.has(id);
    const prunedAt = ghost ? (store.spans[store.spanIndex.get(id) ?? -1]?.prunedTurns ?? []) : [];
    nodes.push({
      id,
      label: members !== undefined ? `${members} archived parents` : (store.spans[store.spanIndex.get(id) ?? -1]?.label ?? null),
      kind: ghost ? 'ghost' : gone ? 'archived' : citers.has(id) ? 'citer' : 'live',
      x: (pos?.x ?? 0) - NODE_W / 2,
      y: (pos?.y ?? 0) - NODE_H / 2,
      width: NODE_W,
      height: NODE_H,
      pinned: span?.pinned ?? false,
      binding: span === undefined ? null : bindingName(span.binding),
      prunedEarlier: ghost && prunedAt.length > 0 && prunedAt[0]! <= t,
      ...(members !== undefined ? { members } : {}),
    });
  }
  return { nodes, edges: keptEdges, isolated, omitted };
}

/**
 * A span's archived parents past MAX_ARCHIVED_SHOWN become one edge from one node
 * (archivedGroupId), in place in `edges`; returns each such node's count of parents. A
 * parent another span cites too keeps its own node as well.
 */
function groupArchived(edges: GraphEdge[]): Map<string, number> {
  const perCiter = new Map<string, number>();
  for (const e of edges) if (e.archived) perCiter.set(e.target, (perCiter.get(e.target) ?? 0) + 1);
  for (const [citer, n] of perCiter) if (n <= MAX_ARCHIVED_SHOWN) perCiter.delete(citer);
  const groups = new Map<string, number>();
  if (perCiter.size === 0) return groups;
  const kept = edges.filter((e) => !(e.archived && perCiter.has(e.target)));
  for (const [citer, n] of perCiter) {
    groups.set(archivedGroupId(citer), n);
    kept.push({ source: archivedGroupId(citer), target: citer, missing: false, archived: true });
  }
  edges.length = 0;
  appendAll(edges, kept);
  return groups;
}

/** Up to `limit` nodes, taking whole connected components in the order of `seeds`. */
function componentsFirst(edges: readonly GraphEdge[], seeds: readonly string[], limit: number): Set<string> {
  const adj = new Map<string, string[]>();
  const link = (a: string, b: string): void => {
    let l = adj.get(a);
    if (l === undefined) adj.set(a, (l = []));
    l.push(b);
  };
  for (const e of edges) {
    link(e.source, e.target);
    link(e.target, e.source);
  }
  const keep = new Set<string>();
  for (const seed of seeds) {
    if (keep.size >= limit) break;
    if (keep.has(seed)) continue;
    const queue = [seed];
    keep.add(seed);
    while (queue.length > 0 && keep.size < limit) {
      const id = queue.shift()!;
      for (const next of adj.get(id) ?? []) {
        if (keep.has(next) || keep.size >= limit) continue;
        keep.add(next);
        queue.push(next);
      }
    }
  }
  return keep;
}
