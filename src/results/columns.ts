// Growable typed-array columns: the per-turn store keeps one number per turn per metric,
// so 100,000 turns cost a few MB and a window of them can be sliced without copying objects.

type TypedArray = Float64Array | Int32Array | Uint8Array | Uint32Array;
type TypedArrayCtor<A extends TypedArray> = { new (length: number): A };

export class Column<A extends TypedArray> {
  private buf: A;
  private n = 0;

  constructor(
    private readonly ctor: TypedArrayCtor<A>,
    // none until the first value: a file may hold thousands of one-turn sessions, each with
    // dozens of columns (some never used), and doubling reaches 100,000 turns in a few copies
    initial = 0,
  ) {
    this.buf = initial > 0 ? new ctor(initial) : emptyOf(ctor);
  }

  get length(): number {
    return this.n;
  }

  /** Bytes allocated, used or not. */
  get heldBytes(): number {
    return this.buf.byteLength;
  }

  push(value: number): void {
    if (this.n === this.buf.length) this.grow(this.n + 1);
    this.buf[this.n++] = value;
  }

  get(i: number): number {
    return this.buf[i]!;
  }

  set(i: number, value: number): void {
    this.buf[i] = value;
  }

  /** A view of the held values: valid until the next push. */
  view(from = 0, to = this.n): A {
    return this.buf.subarray(from, to) as A;
  }

  /** A copy of [from, to), safe to transfer to another thread. */
  copy(from = 0, to = this.n): A {
    return this.buf.slice(from, to) as A;
  }

  private grow(min: number): void {
    const next = new this.ctor(Math.max(min, this.buf.length * 2, 8));
    next.set(this.buf);
    this.buf = next;
  }
}

/** One shared empty array per type: never written to (a push grows the column first). */
const EMPTY = new Map<unknown, TypedArray>();
function emptyOf<A extends TypedArray>(ctor: TypedArrayCtor<A>): A {
  let e = EMPTY.get(ctor);
  if (e === undefined) EMPTY.set(ctor, (e = new ctor(0)));
  return e as A;
}

export const f64 = (initial?: number): Column<Float64Array> => new Column(Float64Array, initial);
export const i32 = (initial?: number): Column<Int32Array> => new Column(Int32Array, initial);
export const u8 = (initial?: number): Column<Uint8Array> => new Column(Uint8Array, initial);
export const u32 = (initial?: number): Column<Uint32Array> => new Column(Uint32Array, initial);
