// A small seeded PRNG for the scenario generator. Tests, samples, the relay's demo and the
// benchmarks must all get byte-identical sessions from the same seed on every runtime
// (Node, a Web Worker, the relay), so nothing here may touch Math.random or the clock.

/** splitmix32's finaliser: spreads small or similar seeds (1, 2, 3 …) over the whole state space. */
function mix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

/** mulberry32: 32 bits of state, period 2^32, plenty for a simulated session and fast in any JS engine. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
    const whole = Math.trunc(seed);
    // Fold the bits above 2^32 in too, so seeds like Date.now() do not collide mod 2^32.
    const low = whole >>> 0;
    const high = Math.floor(whole / 4294967296) >>> 0;
    this.state = mix32(low ^ mix32(high));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [lo, hi). */
  float(lo = 0, hi = 1): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Normally distributed (Box–Muller; one draw of the pair is dropped to keep the state simple). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next(); // (0, 1]: log(0) is -Infinity
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
