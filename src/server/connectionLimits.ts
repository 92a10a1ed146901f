// What one connection may cost the relay, whatever it sends (docs/security.md lists each
// limit with its flag; the message limits of a session's log are in sessionGate.ts).
import type { UnfinishedLimits } from './unfinishedBudget.ts';

export interface ConnectionLimits extends UnfinishedLimits {
  /** lines (blank ones included) of one NDJSON POST body */
  maxRequestLines: number;
  /** bytes of one NDJSON POST body once decompressed */
  maxRequestBytes: number;
  /** a connection that sends no request (not a byte) within this is closed */
  idleTimeoutMs: number;
  /** a request (headers and body), or one WebSocket message, must arrive whole within this */
  bodyTimeoutMs: number;
  /** TCP connections open at once; past it the oldest that sent no request is closed for the new one (default: from the open-file limit, descriptorBudget.ts) */
  maxConnections?: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxRequestLines: 100_000,
  maxRequestBytes: 256 * 1024 * 1024,
  maxUnfinishedBytes: 256 * 1024 * 1024,
  maxUnfinishedBytesPerAddress: 64 * 1024 * 1024,
  idleTimeoutMs: 30_000,
  bodyTimeoutMs: 300_000,
});
