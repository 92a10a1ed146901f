// Writes docs/wire-format.schema.json from the zod schemas of src/core/wire.ts.
import fs from 'node:fs';
import { wireJsonSchema } from '../src/core/wire.ts';

fs.mkdirSync('docs', { recursive: true });
fs.writeFileSync('docs/wire-format.schema.json', JSON.stringify(wireJsonSchema(), null, 2) + '\n');
console.log('wrote docs/wire-format.schema.json');
