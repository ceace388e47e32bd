// The layers, checked on the import graph itself: a small static scan of every import specifier under src/ and
// adapters/ (static, re-exports, type-only and dynamic imports alike). The core (src/bridge, src/gsa) imports no
// adapter; src/config imports nothing of adapters/ (the app hands it the adapter types); only the app layer
// (src/app, src/cli, src/sidecar*) imports the adapter registry, adapters/index.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REGISTRY = 'adapters/index.ts';

/** Every .ts file under `dir`, as a path from the repository root with `/` separators. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; comments are stripped first, so a
// path in prose does not count.
const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The repository files `file` imports (relative specifiers only, `.js` read as the `.ts` it is compiled from). */
function importsOf(file: string): string[] {
  const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier === undefined || !specifier.startsWith('.')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(sep).join('/');
    found.push(target.replace(/\.js$/, '.ts'));
  }
  return found;
}

interface Edge {
  readonly from: string;
  readonly to: string;
}

const EDGES: Edge[] = [...sourceFiles('src'), ...sourceFiles('adapters')].flatMap((from) => importsOf(from).map((to) => ({ from, to })));

const under = (file: string, dir: string): boolean => file.startsWith(`${dir}/`);
const show = (edges: readonly Edge[]): string[] => edges.map(({ from, to }) => `${from} -> ${to}`);

describe('the layers of the import graph', () => {
  it('sees the imports it checks (the scan is not vacuous)', () => {
    expect(EDGES.length).toBeGreaterThan(100);
    expect(show(EDGES)).toContain(`src/app/config.ts -> ${REGISTRY}`);
    expect(show(EDGES)).toContain('adapters/websocket/websocketAdapter.ts -> src/bridge/port.ts');
  });

  it('keeps the core (src/bridge, src/gsa) free of adapters', () => {
    const violations = EDGES.filter(({ from, to }) => (under(from, 'src/bridge') || under(from, 'src/gsa')) && under(to, 'adapters'));
    expect(show(violations)).toEqual([]);
  });

  it('keeps src/config free of adapters: the app hands it the adapter types', () => {
    const violations = EDGES.filter(({ from, to }) => under(from, 'src/config') && under(to, 'adapters'));
    expect(show(violations)).toEqual([]);
  });

  it('lets only the app layer (src/app, src/cli, src/sidecar*) import the adapter registry', () => {
    const appLayer = (file: string): boolean => under(file, 'src/app') || under(file, 'src/cli') || /^src\/sidecar[^/]*\.ts$/.test(file);
    const violations = EDGES.filter(({ from, to }) => to === REGISTRY && !appLayer(from));
    expect(show(violations)).toEqual([]);
  });
});
