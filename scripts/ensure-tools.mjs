#!/usr/bin/env node
// Finds (or, as root on Debian, installs) what the test suites need beyond Node:
//   chromium  headless browser for Playwright (CHROMIUM_PATH overrides; Debian's package `chromium`)
//   python3   runs the seed's reference code for the differential test
//   redis     redis-server for the Redis store's tests (REDIS_SERVER overrides; Debian's package `redis-server`)
//   python-packaging  a python3 that builds the Python client's wheel offline and makes venvs
//             (CONTEXT_HEALTH_PYTHON overrides; Debian's python3-setuptools, -wheel, -pip, -venv)
// Prints what it found; on failure says exactly what to do and exits 1.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findPackagingPython, PYTHON_PACKAGING_DEBIAN } from './python-packaging.mjs';

const wanted = process.argv.slice(2);

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function aptInstall(...pkgs) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !which('apt-get')) return false;
  console.log(`ensure-tools: installing Debian package${pkgs.length > 1 ? 's' : ''} ${pkgs.join(' ')} (apt-get)…`);
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return true;
  } catch {
    return false;
  }
}

export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) if (fs.existsSync(p)) return p;
  return which('chromium') ?? which('chromium-browser') ?? which('google-chrome');
}

export function findRedisServer() {
  const fromEnv = process.env.REDIS_SERVER;
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : null;
  if (fs.existsSync('/usr/bin/redis-server')) return '/usr/bin/redis-server';
  return which('redis-server');
}

let failed = false;
for (const tool of wanted) {
  if (tool === 'chromium') {
    let path = findChromium();
    if (!path && process.env.CHROMIUM_PATH) {
      console.error(`ensure-tools: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
      failed = true;
      continue;
    }
    if (!path && aptInstall('chromium')) path = findChromium();
    if (path) console.log(`ensure-tools: chromium at ${path}`);
    else {
      console.error(
        'ensure-tools: no Chromium found, and it could not be installed.\n' +
          '  On Debian/Ubuntu as root: apt-get install -y chromium\n' +
          '  Elsewhere: install Chrome or Chromium and set CHROMIUM_PATH=/path/to/chrome, then run npm test again.',
      );
      failed = true;
    }
  } else if (tool === 'python') {
    // python3 runs the seed's reference code in the differential test; without that code
    // the test is skipped, so a missing python3 only matters when the code is there.
    const oracle = process.env.CONTEXT_HEALTH_ORACLE ?? path.join(import.meta.dirname, '..', '..', 'shared', 'seeds', '000_reference.py');
    const needed = fs.existsSync(oracle) || process.env.CONTEXT_HEALTH_REQUIRE_ORACLE === '1';
    let found = which('python3');
    if (!found && needed && aptInstall('python3')) found = which('python3');
    if (found) console.log(`ensure-tools: python3 at ${found}`);
    else if (!needed) console.log(`ensure-tools: python3 not needed (no reference code at ${oracle}; the differential test will be skipped)`);
    else {
      console.error(
        "ensure-tools: python3 not found and could not be installed; the differential test runs the seed's\n" +
          `  reference code (${oracle}) with it. Install Python 3 (apt-get install -y python3) and run again.`,
      );
      failed = true;
    }
  } else if (tool === 'redis') {
    let found = findRedisServer();
    if (!found && !process.env.REDIS_SERVER && aptInstall('redis-server')) found = findRedisServer();
    if (found) console.log(`ensure-tools: redis-server at ${found}`);
    else {
      console.error(
        'ensure-tools: no redis-server found, and it could not be installed; the Redis store tests start their own.\n' +
          '  On Debian/Ubuntu as root: apt-get install -y redis-server\n' +
          '  Elsewhere: install Redis 7 and set REDIS_SERVER=/path/to/redis-server, then run npm test again.',
      );
      failed = true;
    }
  } else if (tool === 'python-packaging') {
    let found = findPackagingPython();
    if (!found && !process.env.CONTEXT_HEALTH_PYTHON && aptInstall(...PYTHON_PACKAGING_DEBIAN)) found = findPackagingPython();
    if (found) console.log(`ensure-tools: python3 with setuptools, wheel, pip and venv: ${found}`);
    else {
      console.error(
        'ensure-tools: no python3 with setuptools (61+), wheel, pip and venv, and they could not be installed; the\n' +
          "  package test builds the Python client's wheel with them, offline.\n" +
          `  On Debian/Ubuntu as root: apt-get install -y ${PYTHON_PACKAGING_DEBIAN.join(' ')}\n` +
          '  Elsewhere: set CONTEXT_HEALTH_PYTHON=/path/to/python3 (one that has them), then run npm test again.',
      );
      failed = true;
    }
  } else {
    console.error(`ensure-tools: unknown tool ${tool}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
