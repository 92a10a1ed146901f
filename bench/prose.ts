// Word salad for generated transcripts: words drawn from a vocabulary by a linear
// congruential generator, so a bench's input is the same bytes on every machine (the
// byte-identity suite, test/cli/checkDigests.test.ts, reads the bench transcripts).

/** A source of prose that carries its generator's state from one call to the next. */
export function proseSource(words: readonly string[], seed: number): (chars: number) => string {
  let x = seed;
  return (chars) => {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const w = words[x % words.length]!;
      out.push(w);
      n += w.length + 1;
    }
    return out.join(' ');
  };
}

/** About `chars` characters of prose, the same for the same seed. */
export function prose(words: readonly string[], seed: number, chars: number): string {
  return proseSource(words, seed)(chars);
}
