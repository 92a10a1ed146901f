import type { Severity } from '../../src/worker/client.ts';
import { selectSpan } from '../analysis.ts';

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`sev sev-${severity}`}>{severity}</span>;
}

/** A span id as a button that opens the inspector. The id is untrusted text: rendered as text. */
export function SpanChip({ id, tone }: { id: string; tone?: 'bad' | 'drop' | 'plain' }) {
  return (
    <button type="button" className={`chip ${tone ?? 'plain'}`} onClick={() => selectSpan(id)} title={`Inspect span ${id}`} aria-label={`Inspect span ${id}`}>
      {id}
    </button>
  );
}

export function SpanChips({ ids, limit, tone }: { ids: readonly string[]; limit: number; tone?: 'bad' | 'drop' | 'plain' }) {
  const shown = ids.slice(0, limit);
  return (
    <span className="chips">
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
