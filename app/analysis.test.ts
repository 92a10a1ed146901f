// The bridge between the Worker and the stores (analysis.ts), with the Worker replaced by a
// fake that only records what is asked of it: how many store updates a Worker event costs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobSummary, SessionSummary, WorkerEvent } from '../src/worker/client.ts';

type Listener = (e: Exclude<WorkerEvent, { type: 'reply' }>) => void;
const fake = vi.hoisted(() => ({ listener: null as null | ((e: never) => void), opened: 0, paced: [] as unknown[], drawn: 0 }));

vi.mock('./analysisClient.ts', () => ({
  analysisClient: () => ({
    subscribe: (fn: (e: never) => void) => {
      fake.listener = fn;
      return () => undefined;
    },
    job: 1,
    open: (_source: unknown, _thresholds: unknown, _scorer: unknown, options: unknown) => {
      fake.opened++;
      fake.paced.push(options);
    },
    summaryDrawn: () => {
      fake.drawn++;
    },
    cancel: () => undefined,
    // replies never come: these tests are about the events
    query: () => new Promise(() => undefined),
  }),
}));

const { openFile, openLive, resumeFollow } = await import('./analysis.ts');
const { useAnalysis } = await import('./stores/analysis.ts');
const { setUi, useUi } = await import('./stores/ui.ts');

function summary(turns: number): JobSummary {
  const s = { sessionId: 's1', turns, lastTurn: turns - 1, findings: 0, signalCounts: {}, firstFault: null } as unknown as SessionSummary;
  return { sessions: [s], inputErrorCount: 0, inputErrors: [], linesRead: turns, format: 'jsonl', gzip: false, scorer: 'auto' };
}

const emit = (e: Parameters<Listener>[0]): void => (fake.listener as unknown as Listener)(e);

function countUpdates(run: () => void): number {
  let n = 0;
  const off = useAnalysis.subscribe(() => n++);
  run();
  off();
  return n;
}

describe('Worker summaries reach the store', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('location', { protocol: 'http:', host: '127.0.0.1:1' });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('in one store update per summary (everything that reads it renders once, not twice)', () => {
    openFile(new File(['{}\n'], 'a.jsonl'));
    const s = summary(10);
    expect(countUpdates(() => emit({ type: 'summary', job: 1, summary: s }))).toBe(1);
    const st = useAnalysis.getState();
    expect(st.summary).toBe(s);
    expect(st.latestSummary).toBe(s);
    expect(st.sessionId).toBe('s1');
  });

  it('asks for paced summaries and says when each one is drawn, after the store took it', () => {
    openLive('s1');
    expect(fake.paced.at(-1)).toEqual({ pacedSummaries: true });
    const drawn = fake.drawn;
    emit({ type: 'summary', job: 1, summary: summary(3) });
    expect(fake.drawn).toBe(drawn); // not before the page had a chance to draw it
    vi.runAllTimers();
    expect(fake.drawn).toBe(drawn + 1);
  });

  it('while a live view is paused: the newest summary is kept aside, the screen keeps its own', () => {
    openLive('s1');
    const first = summary(5);
    emit({ type: 'summary', job: 1, summary: first });
    setUi({ follow: false });
    const next = summary(9);
    expect(countUpdates(() => emit({ type: 'summary', job: 1, summary: next }))).toBe(1);
    expect(useAnalysis.getState().summary).toBe(first);
    expect(useAnalysis.getState().latestSummary).toBe(next);
    resumeFollow();
    expect(useAnalysis.getState().summary).toBe(next);
  });

  it('a paused link to a turn takes summaries until one reaches that turn, then keeps its screen', () => {
    openLive('s1');
    // a link opens the session paused at turn 25 (viewUrl.ts); the session is still catching up
    setUi({ follow: false, selectedTurn: 25 });
    const early = summary(4);
    emit({ type: 'summary', job: 1, summary: early });
    expect(useAnalysis.getState().summary).toBe(early);
    const caughtUp = summary(40);
    emit({ type: 'summary', job: 1, summary: caughtUp });
    expect(useAnalysis.getState().summary).toBe(caughtUp);
    const later = summary(50);
    emit({ type: 'summary', job: 1, summary: later });
    expect(useAnalysis.getState().summary).toBe(caughtUp);
    expect(useAnalysis.getState().latestSummary).toBe(later);
    expect(useUi.getState().selectedTurn).toBe(25);
  });
});
