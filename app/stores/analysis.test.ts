import { describe, expect, it } from 'vitest';
import type { JobSummary, SessionSummary } from '../../src/worker/client.ts';
import { chooseSession, loadStatusText, scoresNote, turnsLoaded } from './analysis.ts';

const session = (id: string, turns: number): SessionSummary =>
  ({ sessionId: id, title: null, turns, firstTurn: 1, lastTurn: turns, signalCounts: {}, findings: 0, incidents: 0 }) as unknown as SessionSummary;
const summary = (sessions: SessionSummary[], errors = 0): JobSummary => ({
  sessions,
  inputErrorCount: errors,
  inputErrors: [],
  linesRead: 0,
  format: 'jsonl',
  gzip: false,
  scorer: 'auto',
});

describe('analysis store transforms', () => {
  it('keeps the session on screen when it still exists, else shows the first', () => {
    const s = summary([session('a', 3), session('b', 4)]);
    expect(chooseSession(s, 'b')).toBe('b');
    expect(chooseSession(s, 'gone')).toBe('a');
    expect(chooseSession(summary([]), null)).toBeNull();
    expect(turnsLoaded(s)).toBe(7);
  });

  it('says how many turns loaded and how many input errors there were (contract §6 load-status)', () => {
    const src = { kind: 'file' as const, name: 'run.jsonl', bytes: 10 };
    const done = { state: 'done' as const, progress: null, message: null };
    expect(loadStatusText(src, done, summary([session('a', 120)], 2))).toBe('run.jsonl: 120 turns loaded, 2 input errors');
    expect(loadStatusText(src, done, summary([session('a', 1)], 1))).toBe('run.jsonl: 1 turn loaded, 1 input error');
    expect(loadStatusText(src, done, summary([], 5))).toBe('run.jsonl: 0 turns loaded, 5 input errors: no valid snapshot in this file');
    const refused = { ...summary([], 3), notATranscript: 'not a transcript this reads: expected one of …' };
    expect(loadStatusText(src, done, refused)).toBe('run.jsonl: not a transcript this reads: expected one of …');
    expect(loadStatusText(src, { state: 'cancelled', progress: null, message: null }, summary([session('a', 40)]))).toBe(
      'run.jsonl: cancelled: 40 turns loaded, 0 input errors before stopping',
    );
    expect(loadStatusText(src, done, summary([session('a', 2), session('b', 3)]))).toBe('run.jsonl: 5 turns loaded in 2 sessions, 0 input errors');
  });

  it('names another agent’s transcript and lists the records it left out, by kind (docs/adapters.md)', () => {
    const src = { kind: 'file' as const, name: 's.jsonl', bytes: 10 };
    const done = { state: 'done' as const, progress: null, message: null };
    const adapted = { ...summary([session('a', 6)]), adapter: { format: 'claude-code' as const, skipped: { progress: 3, 'user (sidechain)': 1 } } };
    expect(loadStatusText(src, done, adapted)).toBe(
      's.jsonl: 6 turns loaded, 0 input errors (Claude Code transcript; records not mapped: 3 progress, 1 user (sidechain))',
    );
  });

  it('says where the scores came from whenever they are not the harness’s under auto (contract §7)', () => {
    const scored = (id: string, scores: 'harness' | 'reference', hasAgreement = false) => ({ ...session(id, 3), scores, hasAgreement });
    expect(scoresNote(summary([scored('a', 'harness')]))).toBe('');
    expect(scoresNote(summary([scored('a', 'reference')]))).toBe('; scores: reference (BM25)');
    expect(scoresNote({ ...summary([scored('a', 'harness', true)]), scorer: 'both' })).toBe("; scores: the harness's, compared with the reference (BM25)");
    expect(scoresNote({ ...summary([scored('a', 'harness')]), scorer: 'harness' })).toBe("; scores: the harness's");
    expect(scoresNote(summary([scored('a', 'reference'), scored('b', 'harness')]))).toBe(
      "; scores: reference (BM25) in 1 of 2 sessions, the harness's in the rest",
    );
  });
});
