// One source on the page and everything that keeps it on screen: its Worker client, the
// subscriptions that turn the stores' changes into pulls, and the pulls themselves (coalesced,
// app/pulls.ts). The session on screen (app/analysis.ts, source A) and a comparison partner
// (app/features/compare/compare.ts, source B) are two instances; `dispose()` lets go of all
// of it, so a source's wiring is never left listening after it is gone.
import { AnalysisClient, type Source, type WorkerEvent } from '../src/worker/client.ts';
import { coalesced } from './pulls.ts';

export type SourceEvent = Exclude<WorkerEvent, { type: 'reply' }>;

export interface SourceWiring {
  /** what the source does with its Worker's events (progress, summaries, the connection) */
  onEvent: (event: SourceEvent) => void;
  /** the store subscriptions that drive its pulls, made when its Worker starts; each returns its unsubscribe */
  subscribe: () => readonly (() => void)[];
}

export class SourceSession {
  /** the source being analysed (null before the first, and once closed) */
  source: Source | null = null;
  /** the findings count the last findings pull was made at (-1: none since the last open) */
  findingsFetchedFor = -1;
  private worker: AnalysisClient | null = null;
  private offs: (() => void)[] = [];
  private disposed = false;

  constructor(
    private readonly wiring: SourceWiring,
    private readonly createClient: () => AnalysisClient = () => new AnalysisClient(),
  ) {}

  /** The Worker client, started on first use (with its event listener and the store subscriptions). */
  get client(): AnalysisClient {
    if (this.disposed) throw new Error('this source session was disposed');
    if (this.worker === null) {
      const client = this.createClient();
      this.worker = client;
      this.offs.push(client.subscribe((e) => this.wiring.onEvent(e)));
      for (const off of this.wiring.subscribe()) this.offs.push(off);
    }
    return this.worker;
  }

  /** Whether the Worker was started (a pull before then has nothing to ask). */
  get started(): boolean {
    return this.worker !== null && !this.disposed;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** A pull of this source: at most one in flight and one queued; nothing once disposed. */
  pull(run: (client: AnalysisClient) => Promise<void>, onError: (e: unknown) => void): () => void {
    const pull = coalesced(async () => {
      if (this.started) await run(this.client);
    }, onError);
    return () => {
      if (!this.disposed) pull();
    };
  }

  /** Lets go of the source: every subscription, and the Worker itself (terminated). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.offs) off();
    this.offs = [];
    this.worker?.dispose();
    this.worker = null;
    this.source = null;
  }
}
