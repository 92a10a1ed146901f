// The entry of the hook's audit process (auditChild.ts): bundled by `npm pack` as
// build/cli/hookAudit.mjs; in a clone run through tsx.
import { auditChildMain } from './auditChild.ts';

await auditChildMain();
