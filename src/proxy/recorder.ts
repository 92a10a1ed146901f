// One captured call from its first byte to its turn (docs/proxy.md "A snapshot per call"). The
// request's bytes and the answer's usage are copied as they pass (capture.ts); when the answer
// has ended, the request is read (requests.ts), masked (--redact), and the adapter makes its
// turn, handed to the relay sink. What cannot become a turn is counted, and named in the
// session's next snapshot where the session is known: a body past the capture limit, a body
// that is not JSON, an encoding the proxy cannot undo.
import type { IncomingMessage } from 'node:http';
import { ProxyAdapter } from '../ingest/adapters/proxy/adapter.ts';
import { redactRequest } from '../ingest/adapters/proxy/redact.ts';
import { readRequest, type ProxyApi } from '../ingest/adapters/proxy/requests.ts';
import { formatBytes } from '../ingest/lines.ts';
import { exceedsNesting, TooDeepError, tooDeepMessage } from '../core/nesting.ts';
import { nodeSha256 } from '../node/platform.ts';
import { RequestCapture, ResponseCapture } from './capture.ts';
import { sessionHeader } from './headers.ts';
import type { RelaySink } from './relaySink.ts';

export interface ProxyCounts {
  /** model calls seen (POST /v1/messages, /chat/completions, /responses) */
  calls: number;
  turns: number;
  /** request bodies that were not JSON (forwarded, no turn) */
  malformed: number;
  /** requests or answers past --max-capture-bytes (forwarded, the turn an input error) */
  overLimit: number;
  /** bodies whose Content-Encoding the proxy could not undo */
  undecodable: number;
  /** calls the upstream answered with an error status (passed on, no turn) */
  upstreamErrors: number;
  /** calls cut off before their answer ended (the client left, the upstream broke off) */
  abandoned: number;
  /** calls answered 502: the upstream could not be reached */
  upstreamUnreachable: number;
  /** requests the proxy refused (absolute URL, foreign Host, no token, unwritable header) */
  refused: number;
}

export interface RecorderOptions {
  redact: RegExp[];
  maxCaptureBytes: number;
  log: (line: string) => void;
}

const API_NAMES: Record<ProxyApi, string> = {
  anthropic: 'an Anthropic Messages',
  'openai-chat': 'an OpenAI Chat Completions',
  'openai-responses': 'an OpenAI Responses',
};

export class CallRecorder {
  readonly counts: ProxyCounts = {
    calls: 0,
    turns: 0,
    malformed: 0,
    overLimit: 0,
    undecodable: 0,
    upstreamErrors: 0,
    abandoned: 0,
    upstreamUnreachable: 0,
    refused: 0,
  };
  private readonly adapter = new ProxyAdapter(nodeSha256);
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly sink: RelaySink,
    private readonly options: RecorderOptions,
  ) {}

  /** A forwarded request; a Call when it is a model call (null: passed through, not captured). */
  begin(req: IncomingMessage, api: ProxyApi | null): Call | null {
    if (api === null) return null;
    this.counts.calls++;
    return new Call(this, api, sessionHeader(req.headers), headerText(req.headers['content-encoding']), this.options.maxCaptureBytes);
  }

  /** Every turn of the calls answered so far handed to the sink. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** @internal Call's end: the turn is made off the forwarding path. */
  done(call: Call, response: ResponseCapture, status: number): void {
    const work = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.turn(call, response, status))
      .catch((e: unknown) => this.options.log(`context-health proxy: a call could not be made a turn: ${(e as Error).message}`));
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async turn(call: Call, response: ResponseCapture, status: number): Promise<void> {
    const facts = await response.end();
    if (status >= 400) {
      // the model did not take this window: the agent will send it again, or give up
      this.counts.upstreamErrors++;
      return;
    }
    const limit = formatBytes(this.options.maxCaptureBytes);
    if (call.body.overLimit) {
      this.counts.overLimit++;
      return this.unread(
        call,
        `${API_NAMES[call.api]} request of more than ${limit} (--max-capture-bytes) was forwarded but not captured: its turn is missing`,
      );
    }
    const text = call.body.text(call.encoding);
    if (typeof text !== 'string') {
      this.counts.undecodable++;
      return this.unread(call, `${API_NAMES[call.api]} request was forwarded but not captured: ${text.error}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.counts.malformed++;
      return;
    }
    // contract: a message nests at most MAX_NESTING levels; the adapter's walks over a deeper
    // body would overflow the stack, so it is one input error of its session, not a turn
    if (exceedsNesting(value, 1)) {
      this.counts.malformed++;
      return this.unread(call, tooDeepMessage(`${API_NAMES[call.api]} request`));
    }
    let read;
    try {
      read = readRequest(call.api, value);
    } catch (e) {
      if (!(e instanceof TooDeepError)) throw e;
      // a tool call's "arguments" string nesting too deep: as a too-deep body
      this.counts.malformed++;
      return this.unread(call, `${API_NAMES[call.api]} request: ${e.message}`);
    }
    if ('error' in read) {
      this.counts.malformed++;
      return;
    }
    const request = redactRequest(read, this.options.redact);
    const errors: string[] = [];
    if (response.overLimit) {
      this.counts.overLimit++;
      errors.push(`the answer was longer than ${limit} (--max-capture-bytes): its usage was not read, the tokens are estimated`);
    }
    if (response.error !== null) errors.push(response.error);
    const messages = this.adapter.call(request, call.session ?? request.conversation, {
      inputTokens: facts.inputTokens,
      model: facts.model,
      responseId: facts.responseId,
      ts: new Date().toISOString(),
      inputErrors: errors,
    });
    for (const m of messages) {
      if (m.value.type === 'snapshot') this.counts.turns++;
      this.sink.send(m.value);
    }
    // docs/proxy.md sessions: the state kept per session is bounded by the threads kept
    for (const id of this.adapter.takeForgotten()) this.sink.forget(id);
  }

  private unread(call: Call, message: string): void {
    if (!this.adapter.inputError(call.session, message)) this.options.log(`context-health proxy: ${message}`);
  }

  /** @internal */
  cut(): void {
    this.counts.abandoned++;
  }
}

export class Call {
  readonly body: RequestCapture;
  private capture: ResponseCapture | null = null;
  private status = 0;
  private over = false;

  constructor(
    private readonly recorder: CallRecorder,
    readonly api: ProxyApi,
    /** the agent's session id from the request's headers (nothing else of them is kept) */
    readonly session: string | null,
    readonly encoding: string | undefined,
    private readonly maxBytes: number,
  ) {
    this.body = new RequestCapture(maxBytes);
  }

  request(chunk: Buffer): void {
    this.body.push(chunk);
  }

  response(up: IncomingMessage): ResponseCapture {
    this.status = up.statusCode ?? 0;
    this.capture = new ResponseCapture(this.api, headerText(up.headers['content-type']), headerText(up.headers['content-encoding']), this.maxBytes);
    return this.capture;
  }

  finish(): void {
    if (this.over || this.capture === null) return;
    this.over = true;
    this.recorder.done(this, this.capture, this.status);
  }

  abandon(): void {
    if (this.over) return;
    this.over = true;
    this.recorder.cut();
  }
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}
