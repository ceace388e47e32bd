// Benchmark: the engines a host's `chatPattern` could run on, with the built-in RegExp as the baseline, in one run:
// - load: a fresh node per engine (3 each, medians) requires it, compiles the LuckPerms-style pattern and matches one
//   line; the time to load, to compile, and the resident memory after a forced collection, beside a node that used
//   RegExp only;
// - per line: the chat plugins' real formats on ordinary lines (one of theirs, one server line) and on 16 KiB lines
//   (the log decoder's cut), ns per line and the ratio to RegExp. `chatPattern` is the shipped module (re2js, its
//   lazy DFA asked first, the groups only for a line that matches); `re2js find` asks for the groups at once;
// - hostile: nested quantifiers on a 16 KiB line of a's for the RE2 engines, and for RegExp on lines of 10 to 28
//   characters only (each size once, stopping past 1 s): its time multiplies with every two characters, which is the
//   point; then patterns of 64 and of 400 instructions that keep the most NFA threads alive, each on the longest
//   line it reads, which it matches: the most a line can cost.
// Every engine's answers (name and message) are compared with RegExp's on every line it could run. re2-wasm is not
// a dependency: pass its directory (e.g. after `npm i re2-wasm` in /tmp/re2-eval). Ratios matter; absolute numbers on
// a shared 2-core machine do not. Measures only; never used by the product.
//
//   npm run bench     or     node dist/bench/chat-pattern.js [msPerMeasure] [path to re2-wasm]

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHAT_PATTERN_WORK_BUDGET, MAX_CHAT_PATTERN_INPUT_LENGTH, MAX_CHAT_PATTERN_PROGRAM_SIZE, chatPatternProblem, compileChatPattern } from '../adapters/rcon/reading/chatPattern.js';
import { median } from './processes.js';
import { seededRandom } from './seededRandom.js';

const msPerMeasure = Number(process.argv[2] ?? 150);
const re2wasmPath = process.argv[3] ?? '/tmp/re2-eval/node_modules/re2-wasm';
const LOAD_RUNS = 3;
const require = createRequire(import.meta.url);

type Found = { readonly name: string; readonly message: string } | undefined;
type Matcher = (line: string) => Found;
interface Engine {
  readonly name: string;
  compile(source: string): Matcher;
}

const regExp: Engine = {
  name: 'RegExp (built in, backtracking)',
  compile(source) {
    const pattern = new RegExp(source, 'u');
    return (line) => {
      const groups = pattern.exec(line)?.groups;
      return groups?.name === undefined || groups.name === '' ? undefined : { name: groups.name, message: groups.message ?? '' };
    };
  },
};
const shipped: Engine = {
  name: 'chatPattern (re2js: DFA, then groups)',
  compile(source) {
    const pattern = compileChatPattern(source);
    return (line) => pattern.match(line);
  },
};
const re2jsFind: Engine = {
  name: 're2js find (groups at once)',
  compile(source) {
    const pattern = (require('re2js') as typeof import('re2js')).RE2JS.compile(source, 0);
    return (line) => {
      const matcher = pattern.matcher(line);
      if (!matcher.find()) return undefined;
      const name = matcher.group('name');
      return name === null || name === '' ? undefined : { name, message: matcher.group('message') ?? '' };
    };
  },
};

/** The shape of re2-wasm 1.0.x used here: a RegExp look-alike that insists on the `u` flag. */
type Re2WasmConstructor = new (source: string, flags: string) => { exec(line: string): { groups?: Record<string, string> } | null };
function re2wasm(): Engine | undefined {
  if (!existsSync(join(re2wasmPath, 'package.json'))) return undefined;
  const { RE2 } = require(re2wasmPath) as { RE2: Re2WasmConstructor };
  return {
    name: 're2-wasm 1.0.2',
    compile(source) {
      const pattern = new RE2(source, 'u');
      return (line) => {
        const groups = pattern.exec(line)?.groups;
        return groups?.name === undefined || groups.name === '' ? undefined : { name: groups.name, message: groups.message ?? '' };
      };
    },
  };
}

// The formats, colour codes stripped, as the log shows them (docs/configuration.md, `chatPattern`).
const PATTERNS = [
  { label: 'EssentialsX `[{GROUP}] {DISPLAYNAME}: {MESSAGE}`', source: String.raw`^\[(?<group>[^\]]+)\] (?<name>[A-Za-z0-9_]{3,16}): (?<message>.*)$`, prefix: '[Member] Steve: ' },
  { label: 'LuckPerms prefix `[Admin] Steve » hi`', source: String.raw`^\[[^\]]*\] (?<name>[A-Za-z0-9_]{3,16}) » (?<message>.*)$`, prefix: '[Admin] Steve » ' },
  { label: 'VentureChat `[G] Steve: hi`', source: String.raw`^\[(?<channel>[A-Za-z]+)\] (?<name>\S+): (?<message>.*)$`, prefix: '[G] Steve: ' },
] as const;
const SAYING = 'anyone up for the nether trip tonight? bring food ';
const SERVER_LINE = "Can't keep up! Is the server overloaded? Running 2074ms or 41 ticks behind";
const fill = (start: string, unit: string): string => (start + unit.repeat(Math.ceil(MAX_CHAT_PATTERN_INPUT_LENGTH / unit.length))).slice(0, MAX_CHAT_PATTERN_INPUT_LENGTH);

let sink = 0;
/** ns per call: the median of 3 rounds of at least msPerMeasure each (batches doubled until then), after a warm-up. */
function nsPerCall(run: () => Found): number {
  const round = (ms: number): number => {
    let calls = 0;
    let batch = 1;
    const started = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < BigInt(Math.round(ms * 1e6))) {
      for (let index = 0; index < batch; index++) sink += run() === undefined ? 0 : 1;
      calls += batch;
      batch *= 2;
      elapsed = process.hrtime.bigint() - started;
    }
    return Number(elapsed) / calls;
  };
  round(msPerMeasure / 2);
  return median([round(msPerMeasure), round(msPerMeasure), round(msPerMeasure)]);
}

const shown = (ns: number): string => (ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
const same = (a: Found, b: Found): boolean => a?.name === b?.name && a?.message === b?.message;

interface LoadCost {
  readonly loadMs: number;
  readonly compileMs: number;
  readonly rssMb: number;
}

/** A fresh node: the engine required, the pattern compiled and matched once, then the RSS after a full collection. */
const LOAD_SCRIPT = `
const [kind, path, source, line] = process.argv.slice(1);
const loadStarted = performance.now();
const compile = kind === 'regexp' ? (s) => new RegExp(s, 'u')
  : kind === 're2js' ? ((m) => (s) => m.RE2JS.compile(s, 0))(require(path))
  : ((m) => (s) => new m.RE2(s, 'u'))(require(path));
const loadMs = performance.now() - loadStarted;
const compileStarted = performance.now();
const pattern = compile(source);
const compileMs = performance.now() - compileStarted;
const found = kind === 're2js' ? pattern.matcher(line).find() : pattern.exec(line) !== null;
if (!found) throw new Error('the pattern did not match');
globalThis.gc();
console.log(JSON.stringify({ loadMs, compileMs, rssMb: process.memoryUsage().rss / 1048576 }));`;

async function loadCost(kind: 'regexp' | 're2js' | 're2-wasm'): Promise<LoadCost> {
  const path = kind === 're2js' ? require.resolve('re2js') : re2wasmPath;
  const pattern = PATTERNS[1];
  const runs: LoadCost[] = [];
  for (let run = 0; run < LOAD_RUNS; run++) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', LOAD_SCRIPT, kind, path, pattern.source, `${pattern.prefix}${SAYING}`]);
    runs.push(JSON.parse(stdout) as LoadCost);
  }
  return { loadMs: median(runs.map((r) => r.loadMs)), compileMs: median(runs.map((r) => r.compileMs)), rssMb: median(runs.map((r) => r.rssMb)) };
}

/** RegExp on a hostile pattern, one call per size, growing until a call passes 1 s: the backtracking's growth. */
function regExpBlowUp(source: string, sizes: readonly number[]): string {
  const pattern = new RegExp(source, 'u');
  const times: string[] = [];
  let last = 0;
  for (const size of sizes) {
    const started = performance.now();
    pattern.exec('a'.repeat(size));
    last = performance.now() - started;
    times.push(`${size}: ${last.toFixed(1)} ms`);
    if (last > 1000) break;
  }
  return times.join(', ');
}

/** The largest `(?:a|b|ab|ba){K}` group within `instructions`: what keeps the most NFA threads alive, the worst line. */
function worstPattern(instructions: number): { readonly source: string; readonly programSize: number; readonly maxInputLength: number } {
  let best = { source: '', programSize: 0, maxInputLength: 0 };
  for (let copies = 1; copies < 200; copies++) {
    const source = String.raw`(?<name>(?:a|b|ab|ba){${copies}})(?<message>.*)$`;
    if (chatPatternProblem(source) !== undefined) break;
    const compiled = compileChatPattern(source);
    if (compiled.programSize > instructions) break;
    best = { source, programSize: compiled.programSize, maxInputLength: compiled.maxInputLength };
  }
  return best;
}

async function main(): Promise<void> {
  const wasm = re2wasm();
  const engines: Engine[] = [regExp, shipped, re2jsFind, ...(wasm === undefined ? [] : [wasm])];
  console.log(`chatPattern engines on node ${process.version}: ${msPerMeasure} ms per measure`);

  console.log(`load: a fresh node requires the engine, compiles the LuckPerms-style pattern, matches one line (${LOAD_RUNS} runs, medians)`);
  console.log('| engine | load ms | compile ms | RSS after gc, MB | + over RegExp |');
  console.log('|---|---:|---:|---:|---:|');
  const kinds: ('regexp' | 're2js' | 're2-wasm')[] = ['regexp', 're2js', ...(wasm === undefined ? [] : ['re2-wasm' as const])];
  const loads = new Map<string, LoadCost>();
  for (const kind of kinds) loads.set(kind, await loadCost(kind));
  const baseRss = loads.get('regexp')?.rssMb ?? 0;
  for (const [kind, cost] of loads) console.log(`| ${kind} | ${cost.loadMs.toFixed(1)} | ${cost.compileMs.toFixed(2)} | ${cost.rssMb.toFixed(1)} | ${(cost.rssMb - baseRss).toFixed(1)} |`);

  console.log('\nper line: ns per line (× RegExp)');
  console.log(`| pattern | line | ${engines.map((engine) => engine.name).join(' | ')} |`);
  console.log(`|---|---|${engines.map(() => '---:').join('|')}|`);
  let disagreements = 0;
  for (const pattern of PATTERNS) {
    const lines = [
      { label: 'its chat, 66 chars', text: `${pattern.prefix}${SAYING}` },
      { label: 'a server line, 76 chars', text: SERVER_LINE },
      { label: 'its chat, 16 KiB', text: fill(pattern.prefix, SAYING) },
      { label: 'server text, 16 KiB', text: fill('', `${SERVER_LINE} `) },
    ];
    const matchers = engines.map((engine) => engine.compile(pattern.source));
    for (const line of lines) {
      const expected = matchers[0]?.(line.text);
      const costs = matchers.map((match) => {
        if (!same(match(line.text), expected)) disagreements++;
        return nsPerCall(() => match(line.text));
      });
      const base = costs[0] ?? 1;
      console.log(`| ${pattern.label} | ${line.label} | ${costs.map((ns) => `${shown(ns)} (${(ns / base).toFixed(2)}×)`).join(' | ')} |`);
    }
  }

  const aLine = 'a'.repeat(MAX_CHAT_PATTERN_INPUT_LENGTH);
  const random = seededRandom(42);
  const abLine = Array.from({ length: MAX_CHAT_PATTERN_INPUT_LENGTH }, () => (random() < 0.5 ? 'a' : 'b')).join('');
  const hostile = [
    { source: String.raw`(?<name>(a|aa)+)+b(?<message>)`, line: aLine, label: '16 KiB of a', regExpSizes: [10, 12, 14, 16, 18, 20, 22, 24] },
    { source: String.raw`(?<name>.*)*x(?<message>)`, line: aLine, label: '16 KiB of a', regExpSizes: [16, 18, 20, 22, 24, 26, 28] },
  ];
  for (const instructions of [CHAT_PATTERN_WORK_BUDGET / MAX_CHAT_PATTERN_INPUT_LENGTH, MAX_CHAT_PATTERN_PROGRAM_SIZE]) {
    const worst = worstPattern(instructions);
    const line = abLine.slice(0, worst.maxInputLength);
    hostile.push({ source: worst.source, line, label: `random a/b, ${line.length} chars (its longest; it matches): ${worst.programSize} instructions`, regExpSizes: [] });
  }
  console.log(`\nhostile: one line each (RE2 engines: ns per line; RegExp: one call per line length, stopping past 1 s)`);
  console.log(`| pattern | line | ${engines.slice(1).map((engine) => engine.name).join(' | ')} | RegExp |`);
  console.log(`|---|---|${engines.slice(1).map(() => '---:').join('|')}|---|`);
  for (const { source, line, label, regExpSizes } of hostile) {
    const matchers = engines.slice(1).map((engine) => engine.compile(source));
    const expected = matchers[0]?.(line);
    for (const match of matchers) if (!same(match(line), expected)) disagreements++;
    const costs = matchers.map((match) => shown(nsPerCall(() => match(line))));
    const regExpCell = regExpSizes.length === 0 ? `${shown(nsPerCall(() => regExp.compile(source)(line)))} (no blow-up on this one)` : regExpBlowUp(source, regExpSizes);
    const shownSource = source.length > 48 ? `${source.slice(0, 45)}…` : source;
    console.log(`| \`${shownSource}\` | ${label} | ${costs.join(' | ')} | ${regExpCell} |`);
  }
  console.log(`the last two: the most NFA work a line may cost (CHAT_PATTERN_WORK_BUDGET ${CHAT_PATTERN_WORK_BUDGET} characters × instructions; program limit ${MAX_CHAT_PATTERN_PROGRAM_SIZE})`);
  console.log(`answers that differ from RegExp's (or, hostile, from chatPattern's): ${disagreements} (expected 0)${wasm === undefined ? `; re2-wasm not found at ${re2wasmPath}: its rows are left out` : ''}`);
  if (sink === 42) console.log('');
}

await main();
