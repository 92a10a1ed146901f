// One POST to a webhook. The answer's status is all the relay needs: its body is never
// read (a receiver answering 200 with an endless body once made the relay hold 4 GB),
// the connection is destroyed as soon as the status line and headers have arrived
// (Node caps those at 16 KB). Redirects are not followed: a 3xx is a failed attempt.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface PostOutcome {
  status: number | null;
  /** a network failure (the attempt's own wording is kept out of the delivery log) */
  failed: Error | null;
}

export function postWebhook(url: URL, body: string, timeoutMs: number, signal: AbortSignal, lookup?: LookupFunction): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'context-health-relay', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
        signal,
        ...(lookup === undefined ? {} : { lookup }),
        // a fresh connection each time: a kept-alive one would have to drain the body we never read
        agent: false,
      },
      (res) => {
        done({ status: res.statusCode ?? null, failed: null });
        res.destroy();
        req.destroy();
      },
    );
    // `timeout` is the socket's idle time; a receiver dripping a header byte now and then
    // resets it, so the whole attempt has its own limit too
    const whole = setTimeout(() => req.destroy(new Error('timed out')), timeoutMs);
    req.on('close', () => clearTimeout(whole));
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => done({ status: null, failed: e }));
    req.on('close', () => done({ status: null, failed: new Error('closed without an answer') }));
    req.end(body);
  });
}
