#!/usr/bin/env node
// The package.json that `npm pack` ships, without the clone's build step. A clone needs `prepare` (`npm ci`
// installs and builds, interfaces.md); a host who installs the tarball never builds (dist/ is in it), and npm 11
// lists a packed `prepare` among "install scripts not yet covered by allowScripts". So `prepack` builds, then
// runs `strip`: package.json is copied to package.json.packing and the lifecycle scripts an installer would run
// (preinstall, install, postinstall, prepare) are removed; `postpack` runs `restore`, which renames the copy back,
// byte for byte.
// npm runs no script when a pack fails between the two (a --pack-destination that does not exist, Ctrl+C), so
// `strip` also starts a small detached guard that restores the copy once the npm process is gone, and a later
// `strip` restores a copy left behind before it starts. The guard needs /proc to find npm (Linux); elsewhere only
// the later `strip` heals.
// Must never write package.json except from the copy or a parse of it, never leave the clone without `prepare`
// once npm has exited, and never run outside a clone (it is not in the package's `files`).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const copy = join(root, 'package.json.packing');
/** Lifecycle scripts npm runs, or lists under allowScripts, when it installs a package from a tarball. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
const GUARD_POLL_MS = 100;
/** A guard never outlives a pack by much; this bounds one whose npm pid was reused. */
const GUARD_MAX_MS = 60 * 60 * 1000;

/** Puts the clone's own package.json back; false when there was no copy (nothing was stripped). */
function restore() {
  try {
    renameSync(copy, manifest);
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return false;
    throw error;
  }
}

function strip() {
  if (restore()) process.stderr.write('pack-manifest: restored package.json from a pack that did not finish\n');
  const text = readFileSync(manifest, 'utf8');
  const parsed = JSON.parse(text);
  parsed.scripts = Object.fromEntries(Object.entries(parsed.scripts ?? {}).filter(([name]) => !INSTALL_SCRIPTS.includes(name)));
  // The copy first: from here on, whatever happens, package.json can be put back from it.
  writeFileSync(copy, text);
  startGuard();
  writeFileSync(manifest, `${JSON.stringify(parsed, null, 2)}\n`);
}

/** The npm process running this pack: the nearest ancestor whose command line names npm (Linux /proc). */
function npmPid() {
  let pid = process.ppid;
  for (let depth = 0; depth < 4 && pid > 1; depth += 1) {
    let command;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return undefined;
    }
    // `node …/npm-cli.js pack`, `node /usr/bin/npm pack`, or npm's own process title `npm pack`.
    if (command.some((part) => /(^|[/\\])npm(-cli\.js)?$/.test(part)) || /^npm\b/.test(command[0] ?? '')) return pid;
    try {
      pid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function startGuard() {
  if (!existsSync('/proc/self/stat')) return;
  const pid = npmPid();
  if (pid === undefined) return;
  spawn(process.execPath, [fileURLToPath(import.meta.url), 'guard', String(pid)], { detached: true, stdio: 'ignore' }).unref();
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

function guard(pid) {
  const started = Date.now();
  const timer = setInterval(() => {
    if (!existsSync(copy)) {
      clearInterval(timer);
      return;
    }
    if (!alive(pid) || Date.now() - started > GUARD_MAX_MS) {
      clearInterval(timer);
      restore();
    }
  }, GUARD_POLL_MS);
}

const [command, argument] = process.argv.slice(2);
if (command === 'strip') strip();
else if (command === 'restore') restore();
else if (command === 'guard' && Number.isInteger(Number(argument))) guard(Number(argument));
else {
  process.stderr.write('usage: node tools/pack-manifest.js strip|restore\n');
  process.exitCode = 2;
}
