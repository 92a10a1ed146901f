// Lint fixture: the other half of the deliberate cycle (see ../cycles.test.ts).
import { turnA } from './turnA.ts';

export const turnB = (): number => (Math.random() > 2 ? turnA() : 0);
