// The generator's output, pinned byte for byte. The samples, the demo (which replays itself
// from its stored start after a restart) and the bench transcripts all depend on a seed
// giving the same session forever, so a change to src/sim/ must not move a single random
// draw. The digests below are the sha256 of each case's JSONL (one JSON.stringify'd message
// a line) as written by the generator BEFORE it was split into one strategy per fault
// (issue 23 item 5); the refactor was required to leave them unchanged. A change that is
// meant to alter the sessions updates them, and says so, with `npm run samples` in the same
// commit.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Rng } from './random.ts';
import { allFaults, demoFaultCycle, simulateSession, type FaultKind, type FaultWindow, type ScenarioOptions } from './scenario.ts';

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

function digest(opts: ScenarioOptions): string {
  const h = crypto.createHash('sha256');
  for (const m of simulateSession(opts, sha256)) h.update(JSON.stringify(m) + '\n', 'utf8');
  return h.digest('hex');
}

/**
 * The fault kinds the random cases draw from, written out rather than FAULT_KINDS, so that
 * adding a fault changes only the cases that ask for it (allFaults), not these inputs.
 */
const KINDS: readonly FaultKind[] = [
  'stale_rewrite',
  'unbound_score',
  'underreported_rewrite',
  'fanin_orphans',
  'paraphrase_drift',
  'narrowing_scores',
  'sinking_canary',
  'prune_on_stale',
  'null_scores',
];

/** `count` windows of random kinds over turns first..last, overlapping freely, from their own seed. */
function randomWindows(seed: number, count: number, first: number, last: number): FaultWindow[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => {
    const from = rng.int(first, last);
    return { fault: rng.pick(KINDS), from, to: Math.min(last, from + rng.int(0, 25)) };
  });
}

/** allFaults(turns)'s windows moved to the turn numbers of a session starting at startTurn with turnGap. */
function shifted(windows: readonly FaultWindow[], startTurn: number, turnGap: number): FaultWindow[] {
  const at = (t: number): number => startTurn + (t - 1) * turnGap;
  return windows.map((w) => ({ fault: w.fault, from: at(w.from), to: at(w.to) }));
}

const CASES: Record<string, ScenarioOptions> = {
  'healthy seed 1, 20 spans': { seed: 1, sessionId: 'g', turns: 120, spans: 20 },
  'healthy seed 2, 40 spans, ascii': { seed: 2, sessionId: 'g', turns: 120, spans: 40, nonAscii: false },
  'allFaults(150) seed 5, 16 spans': { seed: 5, sessionId: 'all', turns: 150, spans: 16, textChars: 64, faults: allFaults(150) },
  'allFaults(150) seed 11, 20 spans': { seed: 11, sessionId: 'all', turns: 150, spans: 20, faults: allFaults(150) },
  'allFaults(200) seed 12, 40 spans, pinned 0': { seed: 12, sessionId: 'all', turns: 200, spans: 40, pinned: 0, faults: allFaults(200) },
  'allFaults(120) seed 13, 3 spans': { seed: 13, sessionId: 'tiny', turns: 120, spans: 3, faults: allFaults(120) },
  'allFaults(90) seed 14, 1 span': { seed: 14, sessionId: 'one', turns: 90, spans: 1, faults: allFaults(90) },
  'allFaults(120) seed 15, 200 spans, 400 chars': { seed: 15, sessionId: 'bench', turns: 120, spans: 200, textChars: 400, faults: allFaults(120) },
  'allFaults(150) seed 16, nonAscii false, pinned 5': { seed: 16, sessionId: 'all', turns: 150, spans: 30, nonAscii: false, pinned: 5, faults: allFaults(150) },
  'allFaults(150) seed 17, startTurn 40, turnGap 3': {
    seed: 17,
    sessionId: 'gaps',
    turns: 150,
    spans: 24,
    startTurn: 40,
    turnGap: 3,
    faults: shifted(allFaults(150), 40, 3),
  },
  'allFaults(150) seed 18, startTurn -5, no header, config': {
    seed: 18,
    sessionId: 'cfg',
    title: 'thresholds moved',
    turns: 150,
    spans: 20,
    startTurn: -5,
    header: false,
    config: { spread_floor: 0.1, max_rewrites: 1, relevance_tolerance: 0.08, min_scored: 5 },
    startedAt: '2025-01-02T03:04:05.678Z',
    faults: shifted(allFaults(150), -5, 1),
  },
  'demoFaultCycle(50) seed 19': { seed: 19, sessionId: 'cycle', turns: 400, spans: 24, textChars: 100, faults: demoFaultCycle(50) },
  'demoFaultCycle(137) seed 20, 60 spans': { seed: 20, sessionId: 'cycle', turns: 400, spans: 60, faults: demoFaultCycle(137) },
  // src/server/demo.ts's demoScenario(startedAt) (the tests' project cannot import src/server)
  'demo session, first 3000 turns': {
    seed: 2026,
    sessionId: 'demo',
    title: 'Live demo: a simulated self-editing agent',
    turns: 3000,
    spans: 24,
    textChars: 100,
    faults: demoFaultCycle(100),
    startedAt: '2026-11-11T10:00:00Z',
  },
  'random windows seed 21, 20 spans': { seed: 21, sessionId: 'r', turns: 300, spans: 20, faults: randomWindows(21, 30, 1, 300) },
  'random windows seed 22, 3 spans': { seed: 22, sessionId: 'r', turns: 200, spans: 3, faults: randomWindows(22, 30, 1, 200) },
  'random windows seed 23, 1 span, pinned 0': { seed: 23, sessionId: 'r', turns: 200, spans: 1, pinned: 0, faults: randomWindows(23, 30, 1, 200) },
  'random windows seed 24, 200 spans': { seed: 24, sessionId: 'r', turns: 100, spans: 200, textChars: 200, faults: randomWindows(24, 20, 1, 100) },
  'random windows seed 25, dense overlap, ascii, pinned 0': {
    seed: 25,
    sessionId: 'r',
    turns: 250,
    spans: 30,
    nonAscii: false,
    pinned: 0,
    faults: randomWindows(25, 80, 1, 250),
  },
  'random windows seed 26, startTurn 7, turnGap 2': {
    seed: 26,
    sessionId: 'r',
    turns: 200,
    spans: 20,
    startTurn: 7,
    turnGap: 2,
    faults: randomWindows(26, 40, 7, 7 + 199 * 2),
  },
  'every fault at once, seed 27': {
    seed: 27,
    sessionId: 'all-at-once',
    turns: 120,
    spans: 30,
    faults: KINDS.map((fault, k) => ({ fault, from: 10 + k, to: 80 - k })),
  },
  'no turns': { seed: 28, sessionId: 'empty', turns: 0, spans: 5 },
  // bench/transcripts.ts's benchTranscript(200, 200, 400)
  'bench transcript, 200 turns': {
    seed: 42,
    sessionId: 'bench-200',
    turns: 200,
    spans: 200,
    textChars: 400,
    nonAscii: true,
    pinned: 2,
    faults: allFaults(200),
  },
};

/** Computed from the generator before the refactor into fault strategies (see the top of the file). */
const GOLDEN: Record<string, string> = {
  'healthy seed 1, 20 spans': '1364fe8a3324fb2dc4fd97ccacbdbc2140dad1cc06d82c52a6957225d97f25f6',
  'healthy seed 2, 40 spans, ascii': 'aae881dd3359e40ceba4f31cb1e79925dbb75bf8ac36e2906e164980e3051095',
  'allFaults(150) seed 5, 16 spans': '111dd03fd1bda977b2d5a72c64d76fbbb833945dbcc58e45644036a35ede34e7',
  'allFaults(150) seed 11, 20 spans': '2197ec125494599eb62f10889e14875972476f1f0ad6a0afb2db68248c05bd8e',
  'allFaults(200) seed 12, 40 spans, pinned 0': '387d8d47faea2c0e7fe4acf94b12c18c60e638f826e8d65709e2383aeb225010',
  'allFaults(120) seed 13, 3 spans': 'a2219c16db72960a838c78e41431a90791ff19d26d2443838a293994e53c478f',
  'allFaults(90) seed 14, 1 span': 'a510f69751148020fc504901ab6f762cf50847710993e9dd4aa367323e16cb47',
  'allFaults(120) seed 15, 200 spans, 400 chars': '69015d471950f59a017be5b5a2346fe5176f988cd8a9f82d40f80033670131bb',
  'allFaults(150) seed 16, nonAscii false, pinned 5': '1b600b2a669023d7d57ef020ef880aafb9981cbb1ce587e54114ae6b72eb3c54',
  'allFaults(150) seed 17, startTurn 40, turnGap 3': '0e1c925266ce6ba2ddaef517317041da73336a23e8236a532c8f43021850fb54',
  'allFaults(150) seed 18, startTurn -5, no header, config': '02e1a23f85233bcfb4e81fe9f1fad56024d01e633370af6b16ee27d15b47c259',
  'demoFaultCycle(50) seed 19': '9075906485d386e86da1892b679fe28dea44a2b72691399ec381fd74f2e11576',
  'demoFaultCycle(137) seed 20, 60 spans': 'a81a4dffbb61976b0ad23f0ad87d3b9504d4ad22f10d5deddc82b5434207c6ae',
  'demo session, first 3000 turns': 'f937c2ee48de88ecbf1b65567716327a614a2e22c4295ee5f1608ce9dfb05b14',
  'random windows seed 21, 20 spans': 'df4c262d89d2717d92150b4e6d658d9fdecdc7714f6b53f214720762838d0574',
  'random windows seed 22, 3 spans': 'ff8dffb13dab18a108ae882dcf47eaeeb3699f74d62afcb299f58e0da15f3d7b',
  'random windows seed 23, 1 span, pinned 0': '294a4251db1881aa3551f7bccf03f780c130fdb5c4f1ceaed40bd8ae1d170d3e',
  'random windows seed 24, 200 spans': '00629098ef57b801f468556a9af3338c46e89ee21fa93c17f86842c2a2f64f35',
  'random windows seed 25, dense overlap, ascii, pinned 0': '7395ce7294caabf91cde5aa9fe9a7ffb1de3d922c6a9fab97c4c215ca4cf6454',
  'random windows seed 26, startTurn 7, turnGap 2': '89932af12b2e24fd4e2f26d8945d94ca0cbc30ea8b22db0e486f948bd958d8d7',
  'every fault at once, seed 27': '66afe9a4e8aa8864b04184d52e76654e57cd6342b9ec5c4b188f72ad2e43aee6',
  'no turns': 'e039307cd4329dda0cf0792a29ea53e0cb20f021f9349451aaeaa7353506cf48',
  'bench transcript, 200 turns': '0f37420f9506765540dee2608679b65969638ed41faa64bbdc3ff419af3b4fdd',
};

describe('scenario generator output', () => {
  it('is byte-identical to the pinned digests for every case', () => {
    const actual = Object.fromEntries(Object.entries(CASES).map(([name, opts]) => [name, digest(opts)]));
    expect(actual).toEqual(GOLDEN);
  });
});
