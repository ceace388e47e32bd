// The layering lint rule (eslint.layering.js) fails a wrong-way import and passes a right-way one. Each case is
// in-memory text linted as if it were a file inside src/ or adapters/: ESLint's lintText takes the path, the rule
// resolves the imports from there against the real tree, and nothing is ever written to the working tree.
// Only the layering block runs (with the TypeScript parser, no type-aware rules), so the file takes a second or two.
import { ESLint, type Linter } from 'eslint';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RULE = 'boundaries/dependencies';

let eslint: ESLint;

beforeAll(async () => {
  // A plain JS module outside the TypeScript program: loaded by URL, its one export typed here.
  const { layering } = (await import(pathToFileURL(join(ROOT, 'eslint.layering.js')).href)) as { layering: Linter.Config[] };
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layering],
  });
});

/** The rule ids and messages ESLint reports for `text` as the file `path` (from the repository root). */
async function lint(path: string, text: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, path) });
  return result?.messages ?? [];
}

const rules = (messages: readonly Linter.LintMessage[]): (string | null)[] => messages.map((message) => message.ruleId);

describe('the layering lint rule', () => {
  it('fails a runtime import from the core up into the app', async () => {
    const messages = await lint('src/bridge/plantedWrongWay.ts', "import { bridgeConfigSchema } from '../app/config.js';\nexport const planted = bridgeConfigSchema;\n");
    expect(rules(messages)).toEqual([RULE]);
    expect(messages[0]?.message).toMatch(/"bridge" to elements of type "app"/);
    expect(messages[0]?.line).toBe(1);
  });

  it('fails a type-only import the same way: `import type` is a dependency too', async () => {
    const messages = await lint('src/bridge/plantedWrongWay.ts', "import type { BridgeConfig } from '../app/config.js';\nexport type Planted = BridgeConfig;\n");
    expect(rules(messages)).toEqual([RULE]);
  });

  it.each([
    ['export * from', "export * from '../app/config.js';\n"],
    ['export type … from', "export type { BridgeConfig } from '../app/config.js';\n"],
    ['a dynamic import()', "export const load = async (): Promise<unknown> => import('../app/config.js');\n"],
    ["an import('…') type", "export type Planted = import('../app/config.js').BridgeConfig;\n"],
  ])('fails %s going the wrong way', async (_form, text) => {
    expect(rules(await lint('src/bridge/plantedWrongWay.ts', text))).toEqual([RULE]);
  });

  it('fails an adapter reaching the service client, and src/ reaching into test/', async () => {
    const adapter = await lint('adapters/rcon/plantedWrongWay.ts', "import type { GsaClientOptions } from '../../src/gsa/client/client.js';\nexport type Planted = GsaClientOptions;\n");
    expect(rules(adapter)).toEqual([RULE]);
    const intoTests = await lint('src/gsa/plantedWrongWay.ts', "import { tempDir } from '../../test/fixtures/tempDir.js';\nexport const planted = tempDir;\n");
    expect(rules(intoTests)).toEqual([RULE]);
  });

  it('fails a file in a folder the layering does not place', async () => {
    const messages = await lint('src/unplacedFolder/planted.ts', "import { systemClock } from '../time/clock.js';\nexport const planted = systemClock;\n");
    expect(rules(messages)).toContain('boundaries/no-unknown-files');
  });

  it('passes right-way imports, runtime and type-only, and the one allowed file of another element', async () => {
    const core = await lint(
      'src/bridge/plantedRightWay.ts',
      "import type { GsaClientOptions } from '../gsa/client/client.js';\nimport { systemClock } from '../time/clock.js';\nexport type Planted = GsaClientOptions;\nexport const clock = systemClock;\n",
    );
    expect(core).toEqual([]);
    const codec = await lint('src/gameEmulator/plantedRightWay.ts', "export * from '../../adapters/rcon/sourceRconCodec.js';\n");
    expect(codec).toEqual([]);
    const notTheRestOfRcon = await lint('src/gameEmulator/plantedWrongWay.ts', "export * from '../../adapters/rcon/rconAdapter.js';\n");
    expect(rules(notTheRestOfRcon)).toEqual([RULE]);
  });

  it('is part of the project config that `npm run lint` runs, for src/ and adapters/ alike', async () => {
    const project = new ESLint({ cwd: ROOT });
    for (const file of ['src/bridge/port.ts', 'adapters/rcon/rconAdapter.ts']) {
      const config = (await project.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
      expect(config.rules?.[RULE], file).toEqual([2, expect.anything()]);
      expect(config.rules?.['boundaries/no-unknown-files'], file).toEqual([2]);
    }
  });
});
