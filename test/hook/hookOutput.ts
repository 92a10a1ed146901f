// Claude Code's documented hook output for SessionStart (code.claude.com/docs/en/hooks,
// "SessionStart" and "JSON output": the common fields `continue`, `stopReason`,
// `suppressOutput`, `systemMessage`, and `hookSpecificOutput` with `hookEventName`
// "SessionStart" and `additionalContext`, a string added to the context), as a zod schema
// the tests hold the hook's stdout to. Strict: a key the docs do not name is a failure.
import { z } from 'zod';

export const sessionStartOutput = z.strictObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z.strictObject({
    hookEventName: z.literal('SessionStart'),
    additionalContext: z.string(),
  }),
});

/** The SessionStart input Claude Code writes on the hook's stdin (common fields + source, model). */
export function sessionStartEvent(source: 'startup' | 'resume' | 'clear' | 'compact', transcriptPath: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'cc-audit',
    transcript_path: transcriptPath,
    cwd: '/repo',
    permission_mode: 'default',
    hook_event_name: 'SessionStart',
    source,
    model: 'claude-sonnet-4-5',
    ...extra,
  });
}
