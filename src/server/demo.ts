// The built-in demo session (`serve --demo`, `npm start`): the scenario generator run as
// a live agent loop, one snapshot per interval, fed through the same ingest path as any
// harness (so it is stored, ordered and fanned out like one). Its fault schedule cycles
// through the failure modes of contract §4 every 100 turns: healthy stretches, stale scores,
// paraphrase drift, orphaned parents and a relevance collapse, all within two minutes.
//
// On a restart with the same data directory the demo continues after its last stored
// turn: the generator is deterministic, so it is replayed silently from the session's
// stored start up to that turn, and the buffer carries on exactly where it stopped.
import { demoFaultCycle, DEMO_SCHEDULE_TURNS, simulateSession, type ScenarioOptions } from '../sim/scenario.ts';
import type { Message } from '../core/wire.ts';
import { nodeSha256 } from '../node/platform.ts';
import type { Ingest } from './ingest.ts';
import type { SessionStore } from './sessionStore.ts';

export const DEMO_SESSION = 'demo';
export const DEMO_TITLE = 'Live demo: a simulated self-editing agent';
const DEMO_SEED = 2026;

/** The demo's generator settings; deterministic given the session's start time. */
export function demoScenario(startedAt: string): ScenarioOptions {
  return {
    seed: DEMO_SEED,
    sessionId: DEMO_SESSION,
    title: DEMO_TITLE,
    // a day of the fault cycle at one turn a second; then the demo ends (its log stays bounded)
    turns: DEMO_SCHEDULE_TURNS,
    spans: 24,
    textChars: 100,
    faults: demoFaultCycle(100),
    startedAt,
  };
}

export interface DemoOptions {
  intervalMs: number;
  /** diagnostics; default stderr */
  log?: (line: string) => void;
}

export function startDemo(ingest: Ingest, store: SessionStore, options: DemoOptions): { stop: () => void; ready: Promise<void> } {
  const log = options.log ?? ((line: string) => process.stderr.write(`context-health demo: ${line}\n`));
  let messages: Generator<Message> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const next = (): Message | null => {
    const r = messages!.next();
    return r.done === true ? null : r.value;
  };

  const ready = (async () => {
    const existing = await store.state(DEMO_SESSION, true);
    const lastTurn = existing?.lastTurn ?? null;
    const startedAt = existing?.header?.started_at ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    messages = simulateSession(demoScenario(startedAt), nodeSha256);
    if (lastTurn !== null) {
      // replay the deterministic generator up to the stored turn, yielding now and then
      let skipped = 0;
      for (;;) {
        const m = next();
        if (m === null) break;
        if (m.type === 'snapshot' && m.turn >= lastTurn) break;
        if (++skipped % 2000 === 0) await new Promise((r) => setImmediate(r));
        if (stopped) return;
      }
      log(`continuing the demo session after turn ${lastTurn}`);
    }
    const started = Date.now();
    let emitted = 0;
    const tick = async (): Promise<void> => {
      timer = null;
      for (;;) {
        if (stopped) return;
        const m = next();
        if (m === null) {
          log(`the demo session ran its full schedule (${DEMO_SCHEDULE_TURNS} turns) and stopped; delete it (DELETE /api/sessions/demo) to run it again`);
          return;
        }
        if (existing !== undefined && m.type === 'session') continue; // already stored
        const r = await ingest.message(Buffer.from(JSON.stringify(m)));
        if (r.ok === false) {
          log(`stopped: the relay refused a demo message (${r.message}); is another harness writing to session "demo"?`);
          return;
        }
        if (m.type === 'snapshot') break; // the header goes out with the first snapshot
      }
      emitted++;
      // paced against the start, so the rate does not drift with timer lateness
      timer = setTimeout(() => void tick(), Math.max(0, started + emitted * options.intervalMs - Date.now()));
    };
    await tick();
  })();

  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
