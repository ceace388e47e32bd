// The run's global setup (test/setup/buildDist.ts) keeps the code child processes run in step with the sources: the
// real dist/ was built from this run's sources, and after an edit a spawned process runs the edit, not the last build.
// The edits are made in a small project of the same layout (src/, adapters/, bench/, bin/, dist/) in a temp dir: it
// builds in a second or two, and the real dist/, which the other files' children load meanwhile, is never touched.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildDistIfStale, SOURCES_DIGEST_FILE, sourcesDigest } from '../setup/buildDist.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsc runs in these tests: a second or two each on a quiet machine, several times that beside two CPU hogs. */
const BUILD_TEST_TIMEOUT_MS = patientMs(30_000);

/** A project laid out like this one: bin/cli.js prints what dist/src/cli/main.js (from src/cli/main.ts) says. */
async function smallProject(): Promise<string> {
  const root = await tempDir('dist-build');
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'small', version: '1.0.0', type: 'module' }),
    'tsconfig.json': JSON.stringify({
      compilerOptions: { target: 'ES2023', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], rootDir: '.', outDir: 'dist' },
    }),
    'tsconfig.build.json': JSON.stringify({ extends: './tsconfig.json', compilerOptions: { incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo' }, include: ['src', 'adapters', 'bench'] }),
    'src/cli/main.ts': "import { GREETING } from '../greeting.js';\nexport const answer: string = GREETING;\n",
    'src/greeting.ts': "export const GREETING: string = 'built from the first source';\n",
    'adapters/name.ts': "export const NAME = 'small';\n",
    'bench/run.ts': "export const RUNS = 1;\n",
    'bin/cli.js': "import { answer } from '../dist/src/cli/main.js';\nprocess.stdout.write(answer);\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  // The compiler (and its version, an input of the digest) from this project.
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

/** What a child process spawned on the project's bin/ runs: the built code. */
function spawnedAnswer(root: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(root, 'bin', 'cli.js')], { cwd: root }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${error.message}\n${stderr}`));
    });
  });
}

describe('dist/ before the tests run', () => {
  it("is built from this run's sources (the global setup ran and recorded their digest)", async () => {
    expect(await readFile(join(ROOT, SOURCES_DIGEST_FILE), 'utf8')).toBe(await sourcesDigest(ROOT));
  });

  it('is rebuilt when a source changed, so a spawned process runs the edit; unchanged, nothing is built', { timeout: BUILD_TEST_TIMEOUT_MS }, async () => {
    const root = await smallProject();
    expect(await buildDistIfStale(root)).toMatchObject({ rebuilt: true });
    expect(await spawnedAnswer(root)).toBe('built from the first source');
    expect(await buildDistIfStale(root)).toMatchObject({ rebuilt: false });

    await writeFile(join(root, 'src', 'greeting.ts'), "export const GREETING: string = 'built from the edit';\n");
    expect(await buildDistIfStale(root)).toMatchObject({ rebuilt: true });
    expect(await spawnedAnswer(root)).toBe('built from the edit');
    expect(await buildDistIfStale(root)).toMatchObject({ rebuilt: false });
  });

  it('counts a new, removed or renamed file and the tsconfig as sources, not only edits', async () => {
    const root = await smallProject();
    const digests = [await sourcesDigest(root)];
    await writeFile(join(root, 'adapters', 'extra.ts'), 'export const EXTRA = 1;\n');
    digests.push(await sourcesDigest(root));
    await rename(join(root, 'adapters', 'extra.ts'), join(root, 'bench', 'extra.ts'));
    digests.push(await sourcesDigest(root));
    await writeFile(join(root, 'tsconfig.build.json'), (await readFile(join(root, 'tsconfig.build.json'), 'utf8')).replace('"incremental":true', '"incremental":true,"removeComments":true'));
    digests.push(await sourcesDigest(root));
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('fails the run, naming the error, when the sources do not compile, and tries again next time', { timeout: BUILD_TEST_TIMEOUT_MS }, async () => {
    const root = await smallProject();
    await writeFile(join(root, 'src', 'greeting.ts'), "export const GREETING: number = 'not a number';\n");
    await expect(buildDistIfStale(root)).rejects.toThrow(/dist\/ could not be rebuilt[\s\S]*src\/greeting\.ts[\s\S]*TS2322/);
    // No digest of a failed build: the next run builds again instead of trusting what tsc left in dist/.
    await expect(readFile(join(root, SOURCES_DIGEST_FILE), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(buildDistIfStale(root)).rejects.toThrow(/TS2322/);
  });
});
