// Lint fixture: half of a deliberate import cycle (see ../cycles.test.ts). Not part of the product.
import { turnB } from './turnB.ts';

export const turnA = (): number => turnB() + 1;
