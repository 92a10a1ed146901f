// `npm run bench -- scaling`: the linear-time attacks of issue 39 (test/hostile/attacks/scaling.ts)
// at n, 2n and 4n, each printed with the growth exponent of its counted work (what the tests
// assert, ≤ 1.2) and of its wall time, measured in this one run (docs/security.md "Linear time").
import { performance } from 'node:perf_hooks';
import { SCALING_CASES } from '../test/hostile/attacks/scaling.ts';

export function benchScaling(): void {
  console.log('scaling: work and time at n, 2n, 4n (exponent k of ∝ n^k; linear is 1)');
  for (const c of SCALING_CASES) {
    const n = c.n * 4;
    c.run(c.n); // warm-up
    const sizes = [n, 2 * n, 4 * n];
    const work: number[] = [];
    const ms: number[] = [];
    for (const size of sizes) {
      const t0 = performance.now();
      work.push(c.run(size));
      ms.push(performance.now() - t0);
    }
    const k = (xs: number[]): string => (Math.log2(xs[2]! / xs[0]!) / 2).toFixed(2);
    console.log(
      `  ${c.name}\n    n = ${sizes.join(', ')}: work ${work.join(', ')} (k ${k(work)}); time ${ms.map((t) => t.toFixed(0)).join(', ')} ms (k ${k(ms)})`,
    );
  }
}
