// The page's one Worker client. It lives apart from the bridge (analysis.ts) so that
// modules which only query the Worker (the findings' details cache) need not import the
// bridge, which imports them: that cycle is what this module breaks.
import { AnalysisClient } from '../src/worker/client.ts';

let client: AnalysisClient | null = null;

/** Created on first use: the Worker (and its sha256) starts then. */
export function analysisClient(): AnalysisClient {
  client ??= new AnalysisClient();
  return client;
}
