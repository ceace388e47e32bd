// @ts-check
// The layering of src/ and adapters/ as a lint rule that fails the build: every file belongs to one element, and an
// element imports only what its line in MAY_IMPORT allows (runtime, type-only, `export … from`, `export *`, `import()`
// and `import('…')` types alike). A new folder under src/ or adapters/ is an error until it is placed here.
// Must never grow a same-floor edge that closes a loop: the allow lists are checked to be acyclic when this file loads.
// docs/development.md, "The layers", says how to read a failure.
import boundaries from 'eslint-plugin-boundaries';

/**
 * Every element: its name and the files it holds, as globs from the repository root. The first element whose
 * globs match a file owns it, so a sub-folder that is its own element comes before its parent.
 * A move is a change of one line here: e.g. the adapters' contract (adapters/base/**), or the GSA emulator
 * (src/gsaEmulator/**).
 * @type {ReadonlyArray<readonly [string, readonly string[]]>}
 */
export const ELEMENTS = [
  // The top: one file per command, then the composition root (the sidecar, and the library's entry point).
  ['cli', ['src/cli/**']],
  ['composition-root', ['src/sidecar.ts', 'src/index.ts']],
  ['app', ['src/app/**']],
  // The adapters. The registry (type → schema + factory) sits above the transports; the contract they implement
  // sits below them.
  ['adapter-registry', ['adapters/index.ts']],
  ['adapter-contract', ['adapters/base/**']],
  ['adapter-rcon', ['adapters/rcon/**']],
  ['adapter-websocket', ['adapters/websocket/**']],
  // The features: above the core, beside each other only along FEATURE_EDGES.
  ['gsa-emulator', ['src/gsaEmulator/**']],
  ['game-emulator', ['src/gameEmulator/**']],
  ['config', ['src/config/**']],
  ['ops', ['src/ops/**']],
  ['notify', ['src/notify/**']],
  ['reviews', ['src/reviews/**']],
  ['ledger', ['src/ledger/**']],
  ['moderation', ['src/moderation/**']],
  ['datadir', ['src/datadir/**']],
  // The core, then the service client.
  ['bridge', ['src/bridge/**']],
  ['gsa', ['src/gsa/**']],
  // The base, then the floor.
  ['log', ['src/log/**']],
  ['net', ['src/net/**']],
  ['text', ['src/text/**']],
  ['validation', ['src/validation/**']],
  ['time', ['src/time/**']],
  ['ids', ['src/ids/**']],
  ['types', ['src/types/**']],
  // Leaves anyone may import.
  ['version', ['src/version.ts']],
  ['package-manifest', ['package.json']],
  // Outside the layers: they may import anything, and nothing in src/ or adapters/ may import them.
  ['test', ['test/**']],
  ['bench', ['bench/**']],
  ['tools', ['tools/**']],
];

const FEATURES = ['gsa-emulator', 'game-emulator', 'config', 'ops', 'notify', 'reviews', 'ledger', 'moderation', 'datadir'];
const ADAPTERS = ['adapter-registry', 'adapter-contract', 'adapter-rcon', 'adapter-websocket'];
const LEAVES = ['version'];
const FLOOR = ['time', 'ids', 'types'];
/** The base, lowest first: each may import the ones before it (so they can never import each other both ways). */
const BASE = ['text', 'validation', 'log', 'net'];
const SERVICE_CLIENT_MAY_IMPORT = [...BASE, ...FLOOR, ...LEAVES];
const CORE_MAY_IMPORT = ['gsa', ...SERVICE_CLIENT_MAY_IMPORT];
const FEATURE_MAY_IMPORT = ['bridge', ...CORE_MAY_IMPORT];

/**
 * The features that import each other today, and nothing more: a new edge between two features is a decision,
 * taken here. The game emulator borrows the Source RCON codec, that one file (FILE_EDGES).
 * @type {Readonly<Record<string, readonly string[]>>}
 */
const FEATURE_EDGES = {
  moderation: ['reviews'],
  datadir: ['reviews'],
  // The report outbox and the money ledger write their files with the review journal's durable steps (durableFiles.ts).
  ledger: ['reviews'],
  notify: ['config', 'ops'],
};

/**
 * Edges to one file of another element, where the element as a whole stays out of reach.
 * @type {ReadonlyArray<{ from: string, file: string }>}
 */
const FILE_EDGES = [{ from: 'game-emulator', file: 'adapters/rcon/sourceRconCodec.ts' }];

/** What each element may import besides its own files. @type {Readonly<Record<string, readonly string[]>>} */
export const MAY_IMPORT = {
  cli: ['composition-root', 'app', ...ADAPTERS, ...FEATURES, ...FEATURE_MAY_IMPORT],
  'composition-root': ['app', ...ADAPTERS, ...FEATURES, ...FEATURE_MAY_IMPORT],
  app: [...ADAPTERS, ...FEATURES, ...FEATURE_MAY_IMPORT],
  // Adapters reach the core (its port), never the service client, config or any feature.
  'adapter-registry': ['adapter-contract', 'adapter-rcon', 'adapter-websocket', 'bridge', ...BASE, ...FLOOR, ...LEAVES],
  'adapter-rcon': ['adapter-contract', 'bridge', ...BASE, ...FLOOR, ...LEAVES],
  'adapter-websocket': ['adapter-contract', 'bridge', ...BASE, ...FLOOR, ...LEAVES],
  'adapter-contract': ['bridge', ...BASE, ...FLOOR, ...LEAVES],
  ...Object.fromEntries(FEATURES.map((feature) => [feature, [...(FEATURE_EDGES[feature] ?? []), ...FEATURE_MAY_IMPORT]])),
  bridge: CORE_MAY_IMPORT,
  gsa: SERVICE_CLIENT_MAY_IMPORT,
  ...Object.fromEntries(BASE.map((base, index) => [base, [...BASE.slice(0, index), ...FLOOR, ...LEAVES]])),
  time: ['types', ...LEAVES],
  ids: ['types', ...LEAVES],
  types: [],
  version: ['package-manifest'],
};

/** Throws on an allow list that closes a loop, or names an element that does not exist. */
function checkAcyclic() {
  const names = new Set(ELEMENTS.map(([name]) => name));
  for (const [from, targets] of Object.entries(MAY_IMPORT)) {
    for (const to of [from, ...targets]) if (!names.has(to)) throw new Error(`eslint.layering.js: unknown element ${to}`);
  }
  /** @type {Map<string, 'visiting' | 'done'>} */
  const state = new Map();
  /** @param {string} name @param {string[]} path */
  const visit = (name, path) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      throw new Error(`eslint.layering.js: the allow lists close a loop: ${[...path.slice(path.indexOf(name)), name].join(' → ')}`);
    }
    state.set(name, 'visiting');
    for (const to of MAY_IMPORT[name] ?? []) visit(to, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of Object.keys(MAY_IMPORT)) visit(name, []);
}
checkAcyclic();

const LAYERED_FILES = ['src/**/*.ts', 'adapters/**/*.ts'];

/** @type {import('eslint').Linter.Config[]} */
export const layering = [
  {
    files: LAYERED_FILES,
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/elements': ELEMENTS.map(([type, pattern]) => ({ type, pattern: [...pattern], mode: 'full' })),
      // `import('…').Name` in a type position: a type-only dependency the built-in nodes do not see.
      'boundaries/additional-dependency-nodes': [{ selector: 'TSImportType > Literal', kind: 'type', name: 'import-type' }],
      // `.js` specifiers that name `.ts` sources, as NodeNext writes them.
      'import/resolver': { typescript: { project: `${import.meta.dirname}/tsconfig.json` } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          // A dependency on a file of the repository that no element holds is an error too.
          checkUnknownLocals: true,
          rules: [
            // Each file is its own element (mode 'full'), so an element's files importing each other need a line too.
            ...Object.entries(MAY_IMPORT).map(([from, targets]) => ({ from: { type: from }, allow: { to: { type: [from, ...targets] } } })),
            ...FILE_EDGES.map(({ from, file }) => ({ from: { type: from }, allow: { to: { path: file } } })),
          ],
        },
      ],
      'boundaries/no-unknown-files': 'error',
    },
  },
];
