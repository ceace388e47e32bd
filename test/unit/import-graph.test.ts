// The import graph of src/ and adapters/, read from the source text: no circle of modules and none of folders, type-only
// imports included (a cycle is a cycle, erased at run time or not), and the bridge port (what every adapter imports) reaches neither the review journal nor the data directory lock, not even
// through a type-only import, so an adapter never drags the durable storage in and a change there never
// recompiles every adapter. A small walker, not a dependency: relative `import`/`export … from` lines and `import()`.
// The direction of each edge is the lint's (eslint.layering.js); this test sees the loops a wrong allow list would let by.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

interface Edge {
  readonly to: string;
  /** `import type …`, `export type …`, or braces holding only `type` names: gone at run time. */
  readonly typeOnly: boolean;
}

const FROM_CLAUSE = /^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'(\.[^']*)'/gms;
const DYNAMIC_IMPORT = /\bimport\(\s*'(\.[^']*)'\s*\)/g;
const ONLY_TYPE_NAMES = /^\{\s*(?:type\s+[\w$]+(?:\s+as\s+[\w$]+)?\s*,?\s*)+\}$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function readGraph(): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'adapters'))]) {
    const edges: Edge[] = [];
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(FROM_CLAUSE)) {
      const [, typeKeyword, names = '', specifier = ''] = match;
      const to = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (existsSync(to)) edges.push({ to, typeOnly: typeKeyword !== undefined || ONLY_TYPE_NAMES.test(names.trim()) });
    }
    for (const [, specifier = ''] of text.matchAll(DYNAMIC_IMPORT)) {
      const to = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (existsSync(to)) edges.push({ to, typeOnly: false });
    }
    graph.set(file, edges);
  }
  return graph;
}

const name = (file: string): string => relative(ROOT, file).replaceAll('\\', '/');

/** Every circle of modules (strongly connected component of more than one file), as sorted names. */
function circles(graph: ReadonlyMap<string, readonly Edge[]>, withTypes: boolean): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const edge of graph.get(file) ?? []) {
      if (edge.typeOnly && !withTypes) continue;
      if (!index.has(edge.to)) {
        visit(edge.to);
        low.set(file, Math.min(low.get(file)!, low.get(edge.to)!));
      } else if (onStack.has(edge.to)) {
        low.set(file, Math.min(low.get(file)!, index.get(edge.to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(name(member));
      if (member === file) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The folder a module is in (`src/bridge`, `adapters/rcon`), files at the top of src/ or adapters/ their own. */
function folderOf(file: string): string {
  const parts = name(file).split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : parts.join('/');
}

/** The graph of folders: one edge where any module of one imports any module of another, type-only included. */
function folderGraph(graph: ReadonlyMap<string, readonly Edge[]>): Map<string, Edge[]> {
  const folders = new Map<string, Map<string, Edge>>();
  for (const [file, edges] of graph) {
    const from = join(ROOT, folderOf(file));
    const out = folders.get(from) ?? new Map<string, Edge>();
    folders.set(from, out);
    for (const edge of edges) {
      const to = join(ROOT, folderOf(edge.to));
      if (to !== from) out.set(to, { to, typeOnly: false });
    }
  }
  return new Map([...folders].map(([folder, out]) => [folder, [...out.values()]]));
}

/** Every module `from` reaches, type-only imports included, with the chain that first reached it. */
function reach(graph: ReadonlyMap<string, readonly Edge[]>, from: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[from, [name(from)]]]);
  const queue = [from];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const edge of graph.get(file) ?? []) {
      if (chains.has(edge.to)) continue;
      chains.set(edge.to, [...chains.get(file)!, name(edge.to)]);
      queue.push(edge.to);
    }
  }
  return chains;
}

describe('the import graph', () => {
  const graph = readGraph();

  it('has no circle of modules in src/ or adapters/, type-only imports included', () => {
    expect(circles(graph, true)).toEqual([]);
  });

  it('has no circle of folders (src/bridge and src/reviews importing each other, say), type-only imports included', () => {
    expect(circles(folderGraph(graph), true)).toEqual([]);
  });

  it('keeps the review storage and the data directory lock out of what the bridge port imports', () => {
    const reached = reach(graph, join(ROOT, 'src/bridge/port.ts'));
    const storage = [...reached]
      // Matched on the path inside the project: a checkout under a directory named `reviews` must not match.
      .filter(([file]) => /(?:review(?:Journal|Outbox)|dataDirLock|controlChannel|durableFiles)\.ts$/.test(file) || /^src\/(?:reviews|datadir)\/(?!lockRecord\.ts$)/.test(name(file)))
      .map(([, chain]) => chain.join(' → '));
    expect(storage).toEqual([]);
  });

  it('sees a circle when one is there (the walker itself works)', () => {
    const a = join(ROOT, 'a.ts');
    const b = join(ROOT, 'b.ts');
    const fake = new Map([
      [a, [{ to: b, typeOnly: false }]],
      [b, [{ to: a, typeOnly: true }]],
    ]);
    expect(circles(fake, false)).toEqual([]);
    expect(circles(fake, true)).toEqual([['a.ts', 'b.ts']]);
    // Two folders whose files never meet in a circle still make one.
    const [x1, x2, y1, y2] = ['src/x/one.ts', 'src/x/two.ts', 'src/y/one.ts', 'src/y/two.ts'].map((file) => join(ROOT, file));
    const folders = new Map([
      [x1!, [{ to: y1!, typeOnly: false }]],
      [y2!, [{ to: x2!, typeOnly: true }]],
    ]);
    expect(circles(folders, true)).toEqual([]);
    expect(circles(folderGraph(folders), true)).toEqual([['src/x', 'src/y']]);
    expect(reach(graph, join(ROOT, 'src/bridge/port.ts')).size).toBeGreaterThan(1);
  });
});
