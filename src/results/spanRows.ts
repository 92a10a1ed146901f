// Per-span rows (one row = one live span at one turn) in fixed-size chunks of typed arrays:
// a million rows must not mean a million objects, and the oldest chunks are released past a
// row budget so memory stays bounded on long runs.

export const FLAG_PINNED = 1;
export const FLAG_TEXT_CHANGED = 2;

const CHUNK = 1 << 16;
/** A session's first chunk starts this small and doubles up to CHUNK: most sessions are small. */
const FIRST_CHUNK_ROWS = 64;
const ROW_BYTES = 32;

/** A block of per-span rows (one row = one live span at one turn), at most CHUNK rows. */
class RowChunk {
  readonly span: Int32Array;
  readonly score: Float64Array;
  readonly binding: Uint8Array;
  readonly rewrites: Uint16Array;
  readonly textVer: Int32Array;
  readonly claimVer: Int32Array;
  readonly parentsVer: Int32Array;
  readonly tokens: Int32Array;
  readonly flags: Uint8Array;

  constructor(
    readonly capacity: number,
    from?: RowChunk,
  ) {
    this.span = grown(Int32Array, capacity, from?.span);
    this.score = grown(Float64Array, capacity, from?.score);
    this.binding = grown(Uint8Array, capacity, from?.binding);
    this.rewrites = grown(Uint16Array, capacity, from?.rewrites);
    this.textVer = grown(Int32Array, capacity, from?.textVer);
    this.claimVer = grown(Int32Array, capacity, from?.claimVer);
    this.parentsVer = grown(Int32Array, capacity, from?.parentsVer);
    this.tokens = grown(Int32Array, capacity, from?.tokens);
    this.flags = grown(Uint8Array, capacity, from?.flags);
  }
}

function grown<A extends Int32Array | Float64Array | Uint8Array | Uint16Array>(ctor: { new (n: number): A }, capacity: number, from: A | undefined): A {
  const a = new ctor(capacity);
  if (from !== undefined) a.set(from);
  return a;
}

export interface SpanRowData {
  span: number;
  score: number;
  binding: number;
  rewrites: number;
  textVer: number;
  claimVer: number;
  parentsVer: number;
  tokens: number;
  flags: number;
}

/** Per-span rows in chunks; the oldest chunks are released past the budget. */
export class SpanRows {
  private chunks: RowChunk[] = [];
  /** global row number of chunks[0][0] */
  private base = 0;
  private total = 0;

  constructor(private readonly maxRows: number) {}

  get heldFrom(): number {
    return this.base;
  }

  get length(): number {
    return this.total;
  }

  /** Positional, not an object: a million rows must not mean a million allocations. */
  push(
    span: number,
    score: number,
    binding: number,
    rewrites: number,
    textVer: number,
    claimVer: number,
    parentsVer: number,
    tokens: number,
    flags: number,
  ): void {
    const local = this.total - this.base;
    const ci = local >>> 16;
    const o = local & (CHUNK - 1);
    if (ci === this.chunks.length) this.chunks.push(new RowChunk(ci === 0 && this.base === 0 ? FIRST_CHUNK_ROWS : CHUNK));
    else if (o === this.chunks[ci]!.capacity) this.chunks[ci] = new RowChunk(Math.min(CHUNK, o * 2), this.chunks[ci]);
    const c = this.chunks[ci]!;
    c.span[o] = span;
    c.score[o] = score;
    c.binding[o] = binding;
    c.rewrites[o] = rewrites > 0xffff ? 0xffff : rewrites;
    c.textVer[o] = textVer;
    c.claimVer[o] = claimVer;
    c.parentsVer[o] = parentsVer;
    c.tokens[o] = tokens;
    c.flags[o] = flags;
    this.total++;
  }

  /** Releases whole chunks from the front while more than maxRows are held (never the last chunk). */
  trim(): void {
    while (this.chunks.length > 1 && this.total - this.base - CHUNK >= this.maxRows) {
      this.chunks.shift();
      this.base += CHUNK;
    }
  }

  /** Bytes allocated for rows, used or not. */
  get heldBytes(): number {
    let rows = 0;
    for (const c of this.chunks) rows += c.capacity;
    return rows * ROW_BYTES;
  }

  has(row: number): boolean {
    return row >= this.base && row < this.total;
  }

  spanAt(row: number): number {
    const local = row - this.base;
    return this.chunks[Math.floor(local / CHUNK)]!.span[local % CHUNK]!;
  }

  read(row: number): SpanRowData {
    const local = row - this.base;
    const c = this.chunks[Math.floor(local / CHUNK)]!;
    const o = local % CHUNK;
    return {
      span: c.span[o]!,
      score: c.score[o]!,
      binding: c.binding[o]!,
      rewrites: c.rewrites[o]!,
      textVer: c.textVer[o]!,
      claimVer: c.claimVer[o]!,
      parentsVer: c.parentsVer[o]!,
      tokens: c.tokens[o]!,
      flags: c.flags[o]!,
    };
  }
}
