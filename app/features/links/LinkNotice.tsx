// What a link to a dropped file asks of the person (drop that file), the check of the file
// they drop (its sha256 against the link's), and the parts of a link that were left out.
// Names and ids come from the URL: rendered as text, never as HTML.
import { FileButton } from '../sources/TopBar.tsx';
import { forgetLink, openAnyway } from './links.ts';
import { useLinks } from './linkStore.ts';
import type { ViewLink } from '../../viewUrl.ts';
import './links.css';

/** What the link's view will show, in words: "turn 15, turns 10–40, span s-3". */
function viewWords(link: ViewLink): string {
  const parts: string[] = [];
  if (link.session !== null) parts.push(`session ${link.session}`);
  if (link.turn !== null) parts.push(`turn ${link.turn}`);
  if (link.zoom !== null) parts.push(`turns ${link.zoom.from}–${link.zoom.to}`);
  if (link.signal !== null) parts.push(`findings of ${link.signal}`);
  const set = Object.keys(link.thresholds).length;
  if (set > 0) parts.push(`${set} threshold${set === 1 ? '' : 's'} set`);
  if (link.span !== null) parts.push(`span ${link.span}`);
  if (link.compare !== null) parts.push('a comparison');
  return parts.join(', ');
}

/** Above the welcome screen or the view: the file a link waits for, and what was left out of a link. */
export function LinkNotice() {
  const expected = useLinks((s) => s.expected);
  const check = useLinks((s) => s.check);
  const problems = useLinks((s) => s.problems);
  return (
    <>
      {expected !== null && check === null && (
        <div className="link-notice" role="status" data-testid="link-expected" data-name={expected.source.name} data-sha256={expected.source.sha256}>
          <p>
            This link shows the file <strong>{expected.source.name}</strong> (sha256 <code className="sha">{expected.source.sha256}</code>), which a link cannot
            carry. Drop that file anywhere on this page, or open it: its view{viewWords(expected) === '' ? '' : ` (${viewWords(expected)})`} opens once its
            sha256 matches.
          </p>
          <div className="link-actions">
            <FileButton className="btn primary" label="Open the file…" testId="link-file-input" />
            <button type="button" className="btn ghost" onClick={forgetLink}>
              Forget the link
            </button>
          </div>
        </div>
      )}
      {problems.length > 0 && (
        <div className="link-problems" role="status" data-testid="link-problems">
          Parts of this link were left out: {problems.join('; ')}.{' '}
          <button type="button" className="link" onClick={() => useLinks.setState({ problems: [] })}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}

/** In place of the view while a file dropped on a link is checked, and when it is another file. */
export function FileCheckPanel() {
  const expected = useLinks((s) => s.expected);
  const check = useLinks((s) => s.check);
  if (check === null || expected === null) return null;
  if (check.state === 'checking') {
    return (
      <main className="link-check" data-testid="link-check" data-state="checking" aria-busy="true">
        <p>
          Checking that <strong>{check.name}</strong> is the file this link names ({expected.source.name}, sha256{' '}
          <code className="sha">{expected.source.sha256.slice(0, 12)}…</code>): the view opens when its sha256 matches.
        </p>
      </main>
    );
  }
  return (
    <main className="link-check bad" data-testid="link-check" data-state="mismatch" data-sha256={check.sha256 ?? ''}>
      <h2>This is not the file the link names</h2>
      <p>
        The link shows <strong>{expected.source.name}</strong>, sha256 <code className="sha">{expected.source.sha256}</code>.
      </p>
      <p>
        You dropped <strong>{check.name}</strong>, sha256 <code className="sha">{check.sha256}</code>: other bytes, so the link&apos;s turn, zoom, filters and
        thresholds would describe data it does not hold. None of it is shown.
      </p>
      <div className="link-actions">
        <FileButton className="btn primary" label="Open the linked file…" testId="link-retry-input" />
        <button type="button" className="btn" onClick={openAnyway} data-testid="open-anyway">
          Open {check.name} anyway, without the link&apos;s view
        </button>
        <button type="button" className="btn ghost" onClick={forgetLink}>
          Forget the link
        </button>
      </div>
    </main>
  );
}
