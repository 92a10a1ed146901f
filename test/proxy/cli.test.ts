// The proxy's commands as a user runs them: `serve --proxy-port N` runs the relay and the proxy
// in one process (a call through the proxy becomes a turn of the relay it serves beside), and
// `proxy` refuses a non-loopback --host without --token and a --redact that is no regex.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/runCli.ts';
import { exited, spawnServe, tempDir } from '../relay/helpers.ts';
import { send, storedMessages, until } from './helpers.ts';
import { anthropicStream, startStub } from './stubUpstream.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('context-health proxy (the command)', () => {
  it('serve --proxy-port runs the relay and the proxy in one process', async () => {
    const stub = await startStub(() => anthropicStream({ text: 'hello there' }));
    cleanup.push(() => stub.close());
    const { child, url, output } = await spawnServe(['--port', '0', '--proxy-port', '0', '--no-static', '--data', tempDir(), '--anthropic-upstream', stub.url]);
    cleanup.push(async () => {
      child.kill('SIGTERM');
      await exited(child);
    });
    await until(() => /proxy: (http:\/\/\S+\/)/.test(output()), 10_000);
    const proxyUrl = /proxy: (http:\/\/\S+\/)/.exec(output())![1]!;
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'one process' }] });
    const reply = await send(proxyUrl, '/v1/messages', body, {
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': 'one-process',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.equals(stub.sent[0]!)).toBe(true);
    await until(async () => (await storedMessages(url, 'one-process')).length === 2, 5000);
  });

  it('refuses another --host without --token, and a --redact that is not a regex', async () => {
    const host = await runCli(['proxy', '--host', '0.0.0.0', '--port', '0']);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('--host 0.0.0.0 would let other machines spend your API keys through the proxy: set --token T');
    const redact = await runCli(['proxy', '--port', '0', '--redact', '(']);
    expect(redact.code).toBe(2);
    expect(redact.stderr).toContain('--redact "(" is not a usable regular expression');
    const upstream = await runCli(['proxy', '--port', '0', '--openai-upstream', 'ftp://x']);
    expect(upstream.code).toBe(2);
    expect(upstream.stderr).toContain('--openai-upstream must be an http or https URL');
  });
});
