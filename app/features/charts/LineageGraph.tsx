// The derived_from graph of the selected turn (React Flow; positions come from dagre in
// the Worker). Missing parents are ghost nodes with dashed red edges; archived parents
// (contract §8.2) are muted nodes with dotted grey edges. A node names its span by
// its label (contract §8.8), else its id, rendered as text; the id is on hover.
// React Flow's CSS is imported by Workspace.tsx (the lazy session view, not main.tsx), not
// here: `context-health report` draws the charts under Node, where a .css import cannot load
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  useNodesInitialized,
  useReactFlow,
  useStore,
  type Edge,
  type FitViewOptions,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { GraphNode } from '../../../src/worker/client.ts';
import { selectSpan } from '../../analysis.ts';
import { C } from '../../../src/charts/theme.ts';
import { ExportButtons } from '../../components/ExportButtons.tsx';
import { EXPORT_PREPARE_EVENT } from '../../components/exportPrepare.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';

type SpanNodeData = { node: GraphNode; selected: boolean };
type SpanNode = Node<SpanNodeData, 'span'>;

const SpanNodeView = memo(function SpanNodeView({ data: { node: data, selected } }: NodeProps<SpanNode>) {
  const tag =
    data.kind === 'ghost'
      ? data.prunedEarlier
        ? 'missing · pruned'
        : 'missing · never pruned'
      : data.kind === 'archived'
        ? 'archived · not live'
        : data.kind === 'citer'
          ? 'cites missing'
          : data.pinned
            ? 'pinned'
            : data.binding !== 'bound'
              ? data.binding
              : '';
  return (
    <div
      className={`span-node ${data.kind}${selected ? ' selected' : ''}${data.binding && data.binding !== 'bound' ? ' bad' : ''}`}
      title={
        data.members !== undefined
          ? `${data.members} parents gone from the live context, declared archived`
          : data.label === null
            ? data.id
            : `${data.label}\nspan ${data.id}`
      }
      data-span-id={data.members === undefined ? data.id : undefined}
      data-members={data.members}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <span className={data.label === null ? 'span-node-id' : 'span-node-label'}>{nodeName(data)}</span>
      {tag !== '' && <span className="span-node-tag">{tag}</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { span: SpanNodeView };

/**
 * A node's name: its label; else its id, except for a missing parent never seen live (no text,
 * no label: the Worker knows only its id), shown by the id's start so a long UUID stays legible; the whole id is on hover.
 */
function nodeName(node: GraphNode): string {
  if (node.label !== null) return node.label;
  if (node.kind === 'ghost' && node.id.length > 16) return `never seen · ${node.id.slice(0, 8)}…`;
  if (node.kind === 'archived' && node.id.length > 16) return `${node.id.slice(0, 12)}…`;
  return node.id;
}

/** contract §8.2: the parents drawn that are gone from the live context but archived (not faults). */
function archivedCount(graph: { nodes: readonly GraphNode[] }): number {
  return graph.nodes.reduce((n, node) => n + (node.kind === 'archived' ? (node.members ?? 1) : 0), 0);
}

/** True once the element has come near the viewport: the graph is not drawn while nobody can see it. */
function useSeen(ref: React.RefObject<HTMLElement | null>): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (el === null || seen) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setSeen(true);
      },
      { rootMargin: '200px' },
    );
    io.observe(el);
    // an export of a figure holding the graph draws it even off-screen (issue 24: the box was empty)
    const draw = (): void => setSeen(true);
    window.addEventListener(EXPORT_PREPARE_EVENT, draw);
    return () => {
      io.disconnect();
      window.removeEventListener(EXPORT_PREPARE_EVENT, draw);
    };
  }, [ref, seen]);
  return seen;
}

/**
 * Fits the view to each new graph once React Flow can: it has measured its pane (non-zero
 * size), made its zoom handler and taken the nodes. The `fitView` prop alone fits once, at
 * mount, and when the pane is not ready then it does nothing at all: the graph was drawn
 * off-screen, an empty box with "4 edges" in its caption, until someone zoomed or panned.
 * A pane that is resized fits again.
 */
function FitWhenReady({ graph, options, onFitted }: { graph: object; options: FitViewOptions; onFitted: (graph: object) => void }) {
  const { fitView } = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const hasZoom = useStore((s) => s.panZoom !== null);
  // includeHiddenNodes: the store's plain flag is only refreshed when new nodes are set, so
  // it stays false after React Flow measures them; this form reads the measured nodes
  const initialized = useNodesInitialized({ includeHiddenNodes: true });
  useEffect(() => {
    if (!hasZoom || !initialized || width === 0 || height === 0) return;
    let current = true;
    void fitView(options).then((done) => {
      if (done && current) onFitted(graph);
    });
    return () => {
      current = false;
    };
  }, [graph, options, onFitted, fitView, hasZoom, initialized, width, height]);
  return null;
}

export function LineageGraph() {
  const box = useRef<HTMLElement>(null);
  const seen = useSeen(box);
  const turn = useAnalysis((s) => s.turn);
  const selectedTurn = useUi((s) => s.selectedTurn);
  const selectedSpan = useUi((s) => s.selectedSpan);
  const follow = useUi((s) => s.follow);
  const live = useAnalysis((s) => s.source?.kind === 'live');
  const graph = turn?.graph ?? null;
  const { nodes, edges, focus } = useMemo(() => {
    if (graph === null) return { nodes: [] as SpanNode[], edges: [] as Edge[], focus: [] as { id: string }[] };
    const nodes: SpanNode[] = graph.nodes.map((n) => ({
      id: n.id,
      type: 'span',
      position: { x: n.x, y: n.y },
      data: { node: n, selected: n.id === selectedSpan },
      width: n.width,
      height: n.height,
      draggable: false,
      connectable: false,
      ariaLabel: `${n.kind === 'ghost' ? 'missing parent' : n.kind === 'archived' ? 'archived parent' : 'span'} ${n.label ?? n.id}`,
    }));
    const edges: Edge[] = graph.edges.map((e) => ({
      id: `${e.source}\u2192${e.target}`,
      source: e.source,
      target: e.target,
      // a missing parent's edge is the fault (red, dashed); an archived parent's is dashed grey: gone, not lost
      style: { stroke: e.missing ? C.fault : C.axis, strokeWidth: e.missing ? 1.6 : 1.2, strokeDasharray: e.missing ? '5 4' : e.archived ? '2 3' : undefined },
      markerEnd: { type: MarkerType.ArrowClosed, color: e.missing ? C.fault : C.axis, width: 14, height: 14 },
      focusable: false,
    }));
    // open on the fault: the missing parents and the spans citing them, at a legible zoom
    const faulty = new Set<string>();
    for (const e of graph.edges) if (e.missing) faulty.add(e.source).add(e.target);
    return { nodes, edges, focus: [...faulty].map((id) => ({ id })) };
  }, [graph, selectedSpan]);
  // keyed by the ids, not the array: selecting a span makes new nodes but must not re-fit the view
  const focusKey = focus.map((f) => f.id).join('\u0000');
  const fitOptions = useMemo<FitViewOptions>(
    () => ({ padding: 0.25, maxZoom: 1.2, minZoom: 0.5, ...(focusKey !== '' ? { nodes: focusKey.split('\u0000').map((id) => ({ id })) } : {}) }),
    [focusKey],
  );
  // the graph the view was last fitted to: `data-fitted` tells tests (and anyone) the drawing is in view
  const [fitted, setFitted] = useState<object | null>(null);

  const archived = graph === null ? 0 : archivedCount(graph);
  let note: ReactNode = null;
  if (live && follow)
    note = (
      <>
        The graph of a turn is drawn when you stop on it: a live session changes it several times a second.{' '}
        <button type="button" className="link" onClick={() => setUi({ follow: false })}>
          Pause to explore the lineage
        </button>{' '}
        (or select a turn).
        {turn !== null && turn.metrics.orphan_edges > 0 ? ` Turn ${turn.turn} has ${turn.metrics.orphan_edges} orphan edge(s).` : ''}
      </>
    );
  else if (selectedTurn === null) note = 'Select a turn to see its derivation graph.';
  else if (turn === null) note = 'Loading…';
  else if (graph === null) note = `The per-span rows of turn ${turn.turn} are no longer held in memory (long run); recent turns have them.`;
  else if (graph.nodes.length === 0)
    note = `No derived_from edges among the ${turn.metrics.n_spans} live spans of turn ${turn.turn}: nothing can be orphaned here.`;

  return (
    <section className="lineage" aria-label="Derivation graph of the selected turn" ref={box}>
      <header className="lineage-head">
        <strong>Lineage at turn {selectedTurn ?? '—'}</strong>
        {graph !== null && graph.nodes.length > 0 && (
          <ExportButtons
            figure="lineage"
            label={`Lineage at turn ${selectedTurn ?? ''}`}
            verb="Export"
            target={() => (box.current === null ? [] : [box.current])}
          />
        )}
        {graph !== null && graph.nodes.length > 0 && (
          <span className="muted">
            {graph.nodes.filter((n) => n.kind === 'ghost').length} missing parent(s)
            {archived > 0 ? ` · ${archived} archived parent(s)` : ''} · {graph.edges.length} edges
            {graph.isolated > 0 ? ` · ${graph.isolated} spans without derivation not drawn` : ''}
            {graph.omitted > 0 ? ` · ${graph.omitted} more nodes not drawn (components with orphans first)` : ''}
          </span>
        )}
      </header>
      {note !== null ? (
        <p className="lineage-empty">{note}</p>
      ) : !seen ? (
        <div className="lineage-canvas" />
      ) : (
        <div className="lineage-canvas" data-fitted={graph !== null && fitted === graph}>
          <ReactFlow
            key={`${turn?.sessionId}:${turn?.turn}`}
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            minZoom={0.05}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            onNodeClick={(_, n) => {
              if (n.data.node.members === undefined) selectSpan(n.id); // a group of archived parents is no span
            }}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={18} color="#eef1f5" />
            <Controls showInteractive={false} position="bottom-right" fitViewOptions={fitOptions} />
            {graph !== null && <FitWhenReady graph={graph} options={fitOptions} onFitted={setFitted} />}
          </ReactFlow>
        </div>
      )}
    </section>
  );
}
