// How many batches of lines the parsing threads are given, judged as a read goes: `check`'s
// (src/node/threadedRead.ts) and the dashboard's parsing Workers (src/worker/pooledLines.ts).

/**
 * How many batches the threads are given. A thread's batch saves this thread reading it
 * (the scanner, ~0.1 ms a line) but costs taking its records in (~0.05 ms a line), and it
 * helps only when it is back before the engine needs it. On a machine whose cores are busy
 * (2 cores, the engine on one) a thread's batches came back late and made the engine wait:
 * two threads took longer than one. So each batch the engine waited for halves the threads'
 * share (one batch in 1 + skip goes to them), each one back in time doubles it again; a
 * thread is first given a few batches unjudged (its code warms up meanwhile).
 */
export class ThreadShare {
  private skip = 0;
  private pending = 0;
  private judged = 0;
  private hereLines = 0;
  private hereDeclined = 0;
  private wanted = false;

  /**
   * A batch's lines read on this thread by the snapshot scanner: null where it declined one
   * (read the ordinary way: parsed and validated here, ~3× the scanner's cost, work a
   * thread would have done). The threads are wanted once one line in WANTED_AT of those read
   * so far was declined: where the scanner reads every line, a thread's records cost this
   * thread about as much to take in as reading the lines itself (both ~60 µs a line of the
   * bench transcript), so a thread would only add its start (~0.1 s) and its compiling to a
   * second core's load (on 2 cores, two threads took 1.4× the time of one).
   */
  noteHere(reads: readonly unknown[]): void {
    this.hereLines += reads.length;
    for (const r of reads) if (r === null) this.hereDeclined++;
    if (this.hereLines >= WANTED_AFTER && this.hereDeclined * WANTED_AT >= this.hereLines) this.wanted = true;
  }

  /** Whether the threads are worth starting (noteHere); once they are, they stay. */
  get threadsWanted(): boolean {
    return this.wanted;
  }

  /** Whether the next batch may go to a thread. */
  allow(): boolean {
    if (this.pending === 0) return true;
    this.pending--;
    return false;
  }

  /** A thread's answer to a batch: call the function returned when the batch is about to be taken in. */
  judge(answer: Promise<unknown>): () => void {
    let ready = false;
    answer.then(
      () => (ready = true),
      () => {},
    );
    return () => this.taken(!ready);
  }

  /** A thread's batch is about to be taken in; `waited`: it was not back yet. */
  private taken(waited: boolean): void {
    if (++this.judged <= UNJUDGED) return;
    this.skip = waited ? Math.min(MAX_SKIP, Math.max(1, 2 * this.skip)) : this.skip >> 1;
    this.pending = this.skip;
  }
}

const UNJUDGED = 4;
const MAX_SKIP = 64;
/** lines read here before the threads are judged wanted or not */
const WANTED_AFTER = 32;
/** one declined line in this many read here: threads wanted */
const WANTED_AT = 8;
