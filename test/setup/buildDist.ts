// Global setup for the whole run: makes dist/ what the sources compile to now, before any test starts. Tests that
// spawn bin/gsa-bridge.js, or load dist/ in a child process, run the compiled code, not src/: without this an edit
// to src/ (or a mutant) would be tested in-process but not in any child, which would run whatever was built last.
// A digest of every build input is kept beside the output (dist/.sources-sha256); when it matches, nothing is built
// (a few ms), otherwise `tsc -p tsconfig.build.json` runs (incremental through dist/.tsbuildinfo: seconds, not a
// full build). A build that fails fails the run, naming tsc's errors. Must never write outside dist/.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Everything tsconfig.build.json compiles (its `include`). */
const INPUT_DIRS = ['src', 'adapters', 'bench'];
/** The config, package.json (src/version.ts imports it) and the compiler itself (another version emits otherwise). */
const INPUT_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'node_modules/typescript/package.json'];
/** The digest of the inputs dist/ was last built from; removed before a build, written after one that succeeded. */
export const SOURCES_DIGEST_FILE = join('dist', '.sources-sha256');
/** What bin/gsa-bridge.js loads first: without it there is nothing to run, whatever the digest says. */
const ENTRY_OUTPUT = join('dist', 'src', 'cli', 'main.js');

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(root, path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** sha256 over each input's path (relative to `root`) and content: any edit, new file, deletion or rename changes it. */
export async function sourcesDigest(root: string): Promise<string> {
  const paths = [...(await Promise.all(INPUT_DIRS.map((dir) => filesUnder(root, dir)))).flat(), ...INPUT_FILES].sort();
  const hash = createHash('sha256');
  for (const path of paths) {
    hash.update(`${path}\0`);
    hash.update(await readFile(join(root, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function runTsc(root: string): Promise<void> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`dist/ could not be rebuilt from the sources: \`tsc -p tsconfig.build.json\` failed (${error.code ?? error.signal ?? error.message}); fix these, or run \`npm run build\` to see them:\n${stdout}${stderr}`));
    });
  });
}

export interface DistBuild {
  /** Whether tsc ran: false when dist/ was already built from these exact inputs. */
  readonly rebuilt: boolean;
  readonly elapsedMs: number;
}

/** Rebuilds `root`/dist when any build input differs from the ones it was last built from. */
export async function buildDistIfStale(root: string): Promise<DistBuild> {
  const started = performance.now();
  const digestPath = join(root, SOURCES_DIGEST_FILE);
  // Taken before the build: a file saved while tsc runs makes the next digest differ, so the next run builds again.
  const digest = await sourcesDigest(root);
  const built = await readFile(digestPath, 'utf8').catch(() => undefined);
  const entryExists = await access(join(root, ENTRY_OUTPUT)).then(
    () => true,
    () => false,
  );
  if (built === digest && entryExists) return { rebuilt: false, elapsedMs: performance.now() - started };
  await rm(digestPath, { force: true });
  await runTsc(root);
  await writeFile(digestPath, digest);
  return { rebuilt: true, elapsedMs: performance.now() - started };
}

export async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const build = await buildDistIfStale(root);
  if (build.rebuilt) process.stdout.write(`dist/ rebuilt from the current sources (tsc, ${(build.elapsedMs / 1000).toFixed(1)} s)\n`);
}
