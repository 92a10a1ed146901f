// The audited items of one compaction (contract §8.4), by kind, lost first. Every row says
// its status in words (colour is never the only cue) and links to the turn and span it came
// from. Item texts are the agent's input: rendered as text, never as HTML.
import type { CarriedItem, RecordItem } from '../../../src/worker/client.ts';
import { selectSpan, selectTurn } from '../../analysis.ts';
import { itemsByKind, KIND_LABEL, shownRows } from './compactionRows.ts';
import { useSpanLabel } from '../../stores/spanLabels.ts';
import { shortLabel } from '../turn/spanNames.ts';

export function CompactionItems({ items, carried = false }: { items: readonly (RecordItem | CarriedItem)[]; carried?: boolean }) {
  const groups = itemsByKind(items);
  return (
    <>
      {groups.map((g) => {
        // rows listed per kind, the rest counted: a refetch storm's compaction lists every file it lost
        const { rows, more } = shownRows(g.items);
        return (
          <section key={g.kind} className="compaction-kind" data-testid="compaction-kind" data-kind={g.kind}>
            <h4>
              {KIND_LABEL[g.kind].many} <span className="muted">{g.items.length}</span>
            </h4>
            <ul className="compaction-items">
              {rows.map((it, i) => (
                <ItemRow key={`${i}:${it.text}`} item={it} carried={carried} />
              ))}
            </ul>
            {more > 0 && <p className="muted">… and {more} more (every item is in the report and in check --json)</p>}
          </section>
        );
      })}
    </>
  );
}

function ItemRow({ item, carried }: { item: RecordItem | CarriedItem; carried: boolean }) {
  const confirmed = 'confirmed' in item && item.confirmed;
  const refetchedAt = 'refetched_at' in item ? item.refetched_at : null;
  const firstAudited = 'first_audited_at' in item ? item.first_audited_at : null;
  const label = useSpanLabel(item.span_id ?? '');
  const spanName = label ?? item.span_id ?? '';
  return (
    <li
      className={`compaction-item status-${item.status}${confirmed ? ' confirmed' : ''}`}
      data-testid="compaction-item"
      data-kind={item.kind}
      data-status={item.status}
      data-confirmed={confirmed ? 'true' : 'false'}
      data-carried={carried ? 'true' : 'false'}
      data-from-turn={item.from_turn}
    >
      <span className={`item-status item-${item.status}`}>{item.status}</span>
      {confirmed && (
        <span className="item-confirmed" title="Lost by the summary, then gone back for: a confirmed loss (contract §8.4)">
          confirmed loss
        </span>
      )}
      <span className={`item-text${item.kind === 'file' || item.kind === 'command' ? ' mono' : ''}`} title={item.text}>
        {item.text}
      </span>
      <span className="item-links">
        <button
          type="button"
          className="link"
          onClick={() => selectTurn(item.from_turn)}
          data-testid="item-turn"
          aria-label={`Select turn ${item.from_turn}, where this item came from`}
        >
          turn {item.from_turn}
        </button>
        {item.span_id !== null && (
          <button
            type="button"
            className={label === null ? 'link mono' : 'link'}
            data-testid="item-span"
            onClick={() => {
              selectTurn(item.from_turn);
              selectSpan(item.span_id);
            }}
            aria-label={`Inspect span ${spanName} at turn ${item.from_turn}`}
            title={`span ${item.span_id}`}
            data-span-id={item.span_id}
          >
            {shortLabel(spanName)}
          </button>
        )}
        {refetchedAt !== null && (
          <button
            type="button"
            className="link"
            onClick={() => selectTurn(refetchedAt)}
            aria-label={`Select turn ${refetchedAt}, where the agent went back for it`}
          >
            gone back for at turn {refetchedAt}
          </button>
        )}
        {firstAudited !== null && <span className="muted">first audited at turn {firstAudited}</span>}
      </span>
    </li>
  );
}
