import type { Severity } from '../../src/worker/client.ts';
import { selectSpan } from '../analysis.ts';
import { useSpanLabel } from '../stores/spanLabels.ts';
import { shortLabel } from '../features/turn/spanNames.ts';

/** A chip holds a label's first words; the whole label and the id are on hover. */
const CHIP_NAME = 40;

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`sev sev-${severity}`}>{severity}</span>;
}

/**
 * A span as a button that opens the inspector, named by its label (contract §8.8) with the id
 * on hover; by its id when it has no label. Both are untrusted text: rendered as text.
 */
export function SpanChip({ id, tone }: { id: string; tone?: 'bad' | 'drop' | 'plain' }) {
  const label = useSpanLabel(id);
  return (
    <button
      type="button"
      className={`chip ${tone ?? 'plain'}${label === null ? '' : ' labelled'}`}
      onClick={() => selectSpan(id)}
      title={label === null ? `Inspect span ${id}` : `${label}\nspan ${id}`}
      aria-label={label === null ? `Inspect span ${id}` : `Inspect span ${label} (${id})`}
      data-span-id={id}
    >
      {label === null ? id : shortLabel(label, CHIP_NAME)}
    </button>
  );
}

/** At most `limit` spans; a longer list says how many it holds first, never dumps them (issue 21). */
export function SpanChips({ ids, limit, tone }: { ids: readonly string[]; limit: number; tone?: 'bad' | 'drop' | 'plain' }) {
  const shown = ids.slice(0, limit);
  return (
    <span className="chips">
      {ids.length > limit && (
        <span className="muted">
          {ids.length.toLocaleString('en-US')} spans, the first {limit}:
        </span>
      )}
      {shown.map((id) => (
        <SpanChip key={id} id={id} tone={tone} />
      ))}
      {ids.length > limit && <span className="muted"> and {ids.length - limit} more</span>}
    </span>
  );
}

export function fmtNum(v: number | null, digits = 3): string {
  if (v === null || !Number.isFinite(v)) return '—';
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(digits);
}
