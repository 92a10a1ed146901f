// contract §8.3–§8.4 in a report: one compaction's audit as Markdown (`report --compaction N`,
// and the dashboard's "Report this compaction"). Every text from the transcript goes through
// mdText: a summary or a prompt never becomes markup, and a `|` never forges a table cell.
import type { CompactionRecord, RecordItem } from '../core/compactions.ts';
import { compactionLine } from './compactionWords.ts';
import { mdText, shorten } from './markdown.ts';

const STATUS_ORDER: Readonly<Record<RecordItem['status'], number>> = { lost: 0, paraphrased: 1, kept: 2 };

/** lost first (confirmed losses first among them), then paraphrased, then kept; by turn within each */
export function itemsInReadingOrder<T extends Pick<RecordItem, 'status' | 'from_turn'> & { confirmed?: boolean }>(items: readonly T[]): T[] {
  return [...items].sort(
    (a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || Number(b.confirmed === true) - Number(a.confirmed === true) || a.from_turn - b.from_turn,
  );
}

export function compactionMarkdown(record: CompactionRecord, number: number, sessionId: string): string {
  const out: string[] = [];
  out.push(`## Compaction ${number} of session ${mdText(sessionId)}: turn ${record.turn}`, '');
  out.push(mdText(compactionLine(record)), '');
  const confirmed = record.items.filter((i) => i.confirmed);
  if (confirmed.length > 0) {
    out.push(
      `**Confirmed losses:** ${confirmed.length} item${confirmed.length === 1 ? '' : 's'} the summary lost ${confirmed.length === 1 ? 'was' : 'were'} gone back for (contract §8.6 \`compaction_loss\`).`,
      '',
    );
  }
  out.push('### Summary', '');
  out.push(record.summary_text === '' ? '_No summary: the context was replaced without one._' : `> ${mdText(shorten(record.summary_text, 2000))}`, '');
  if (record.items.length > 0) {
    out.push('### Load-bearing items (lost first)', '', '| kind | item | status | from turn | gone back for at | span |', '|---|---|---|---|---|---|');
    for (const it of itemsInReadingOrder(record.items)) {
      const status = it.confirmed ? `**${it.status}, confirmed**` : it.status;
      out.push(
        `| ${it.kind} | ${mdText(shorten(it.text))} | ${status} | ${it.from_turn} | ${it.refetched_at ?? '—'} | ${it.span_id === null ? '—' : mdText(it.span_id)} |`,
      );
    }
    out.push('');
  }
  if (record.carried.length > 0) {
    out.push('### Items of earlier compactions, judged again', '', '| kind | item | first audited at | status now |', '|---|---|---|---|');
    for (const c of itemsInReadingOrder(record.carried)) out.push(`| ${c.kind} | ${mdText(shorten(c.text))} | turn ${c.first_audited_at} | ${c.status} |`);
    out.push('');
  }
  return out.join('\n');
}
