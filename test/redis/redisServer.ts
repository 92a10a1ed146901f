// A redis-server of the test's own: on a free loopback port, in a temporary directory, with
// no RDB snapshots and no append-only file (nothing outlives the test), stopped after it.
// scripts/ensure-tools.mjs (`npm run test:unit` and `test:e2e`) installs Debian's redis-server when
// missing. Vitest-free, so the Playwright specs start their Redis with it too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export function redisServerPath(): string | null {
  const fromEnv = process.env.REDIS_SERVER;
  if (fromEnv !== undefined && fromEnv !== '') return fs.existsSync(fromEnv) ? fromEnv : null;
  if (fs.existsSync('/usr/bin/redis-server')) return '/usr/bin/redis-server';
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface TestRedis {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startRedis(extra: string[] = [], knownPort?: number): Promise<TestRedis> {
  const bin = redisServerPath();
  if (bin === null) throw new Error('redis-server not found: run `node scripts/ensure-tools.mjs redis` (apt-get install -y redis-server) or set REDIS_SERVER');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-redis-'));
  const port = knownPort ?? (await freePort());
  const child = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  /** the server stopped (`signal` when it still runs) and its folder removed, whatever state it is in */
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (running()) {
      child.kill(signal);
      await gone;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 15_000);
    const onData = (): void => {
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
  // a server that did not come up is not left running, nor its folder behind
  await ready.catch(async (e: unknown) => {
    await end('SIGKILL');
    throw e;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    // the folder goes also when the server is already gone (a test killed it): it used to stay
    stop: () => end('SIGTERM'),
  };
}

/** A Redis Cluster of `nodes` masters (no replicas) on free loopback ports, slots spread by redis-cli. */
export async function startRedisCluster(nodes = 3): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = redisServerPath();
  if (bin === null) throw new Error('redis-server not found: run `node scripts/ensure-tools.mjs redis`');
  const cli = path.join(path.dirname(bin), 'redis-cli');
  const servers: TestRedis[] = [];
  const ports: number[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.stop()));
  };
  try {
    for (let i = 0; i < nodes; i++) {
      const port = await freePort();
      ports.push(port);
      servers.push(await startRedis(['--port', String(port), '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`], port));
    }
    const create = spawnSync(cli, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      encoding: 'utf8',
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
    // every node must know the whole slot map before a relay connects: a node still gossiping
    // answers CLUSTERDOWN, which the client retries, and a busy machine turned that into a hang
    for (const port of ports) {
      for (let i = 0; ; i++) {
        const info = spawnSync(cli, ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' });
        if (info.stdout.includes('cluster_state:ok')) break;
        if (i === 300) throw new Error(`Redis Cluster node 127.0.0.1:${port} not ready after 30 s:\n${info.stdout}${info.stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (e) {
    await stop(); // the nodes already started are not left running when a later step fails
    throw e;
  }
  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    stop,
  };
}
