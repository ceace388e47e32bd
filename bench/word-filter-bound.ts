// Benchmark: the most one chat line can cost the chat filter's matcher (moderation.filter.words), which runs on the
// event loop: 16 KiB lines (the mod protocol's default frame cap) against real lists and the worst lists found, with
// ordinary chat through a real list as the baseline, in one run. Each row: the live states the matcher read for the line (its
// bound is WORK_LIMIT), whether the line was examined to its end, and the time of the first call on a new filter and
// the median and the max of the later ones. The goal: no call over about 10 ms. Ratios matter; absolute numbers on a
// shared 2-core machine do not. Measures only; never used by the product.
//
//   npm run bench     or     node dist/bench/word-filter-bound.js [calls per row]

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WORK_LIMIT, WordFilter } from '../src/moderation/wordFilter.js';
import { seededRandom } from './seededRandom.js';

const calls = process.argv[2] === undefined || process.argv[2] === 'first' ? 15 : Number(process.argv[2]);
const LINE = 16_384;

/** `unit` repeated to a 16 KiB line. */
const fill = (unit: string): string => unit.repeat(Math.ceil(LINE / unit.length)).slice(0, LINE);

const leo = readFileSync(new URL('../../test/fixtures/wordlists/leo-profanity-en.txt', import.meta.url), 'utf8').split('\n').filter((word) => word !== '');
const random = seededRandom(29);
const ilWord = (length: number): string => Array.from({ length }, () => (random() < 0.5 ? 'i' : 'l')).join('');

/** A 1,000-word list of the shape chat-verdicts uses (common prefixes, made-up words), beside the real one. */
function thousandWords(): string[] {
  const words = ['scam', 'hell', 'ass', 'bad', 'cheater', 'go away'];
  for (let index = 0; words.length < 1000; index++) {
    let suffix = '';
    for (let rest = index; suffix.length < 3 || rest > 0; rest = Math.floor(rest / 26)) suffix += String.fromCharCode(97 + (rest % 26));
    words.push(`${['th', 'he', 'the', 'her', 'z'][index % 5] ?? 'z'}${suffix}`);
  }
  return words;
}

const LISTS: readonly { readonly name: string; readonly words: readonly string[] }[] = [
  { name: 'leo-profanity (253 words)', words: leo },
  { name: '1,000 words (chat-verdicts)', words: thousandWords() },
  { name: 'i/l: 1,024 words of 10 letters', words: Array.from({ length: 1024 }, (_, n) => Array.from({ length: 10 }, (_, b) => (((n >> b) & 1) === 1 ? 'i' : 'l')).join('')) },
  { name: 'i/l: 1,000 random words of 4-20 letters', words: Array.from({ length: 1000 }, () => ilWord(4 + Math.floor(random() * 17))) },
  { name: 'i/l: 1,000 random words of 100 letters', words: Array.from({ length: 1000 }, () => ilWord(100)) },
  { name: 'runs: a, aa, ... 100 a', words: Array.from({ length: 100 }, (_, n) => 'a'.repeat(n + 1)) },
];

const LINES: readonly { readonly name: string; readonly text: string }[] = [
  { name: 'ordinary chat (baseline)', text: fill('anyone up for a raid on the north base tonight? bring rockets and meds. ') },
  { name: '`!` x 16 Ki', text: fill('!') },
  { name: '`1!`', text: fill('1!') },
  { name: '`1!|`', text: fill('1!|') },
  { name: '`i1`', text: fill('i1') },
  { name: '`1 ` (lone letters)', text: fill('1 ') },
  { name: '`a` x 16 Ki', text: fill('a') },
  { name: '`a!a$`', text: fill('a!a$') },
];

interface Row {
  readonly list: string;
  readonly line: string;
  readonly steps: number;
  readonly whole: boolean;
  readonly firstMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

function measure(words: readonly string[], text: string): Omit<Row, 'list' | 'line'> {
  let whole = true;
  const filter = new WordFilter(words, { onOverBudget: () => (whole = false) });
  const time = (): number => {
    const started = process.hrtime.bigint();
    filter.matchIndex(text);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const firstMs = time();
  const later = Array.from({ length: calls }, time).sort((a, b) => a - b);
  return { steps: filter.lastWork, whole, firstMs, medianMs: later[Math.floor(later.length / 2)] ?? 0, maxMs: later[later.length - 1] ?? 0 };
}

const I_L_1024 = LISTS[2];
const BANG = LINES[1];

// `first`: in a process of its own, the first filter (with the confusables table and the walk's warm-up,
// wordFilter.ts WARM_UP) and its first line, the worst list's worst line: what a hostile player meets first.
if (process.argv[2] === 'first') {
  const started = process.hrtime.bigint();
  const filter = new WordFilter(I_L_1024?.words ?? []);
  const builtMs = Number(process.hrtime.bigint() - started) / 1e6;
  const lineMs = (): number => {
    const line = process.hrtime.bigint();
    filter.matchIndex(BANG?.text ?? '');
    return Number(process.hrtime.bigint() - line) / 1e6;
  };
  // The second line too: a first line that took a path the optimised walk had not seen would slow the next one.
  console.log(JSON.stringify({ builtMs, firstLineMs: lineMs(), secondLineMs: lineMs() }));
  process.exit(0);
}

/** Five fresh processes, each building the first filter and walking its first line. */
interface FreshProcess {
  readonly builtMs: number;
  readonly firstLineMs: number;
  readonly secondLineMs: number;
}

function freshProcesses(): FreshProcess[] {
  return Array.from({ length: 5 }, () => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'first'], { encoding: 'utf8' })) as FreshProcess);
}

const rows: Row[] = [];
for (const list of LISTS) for (const line of LINES) rows.push({ list: list.name, line: line.name, ...measure(list.words, line.text) });

const baseline = rows.find((row) => row.list === LISTS[0]?.name && row.line === LINES[0]?.name);
console.log(`the chat filter's matcher on 16 KiB lines: ${calls} calls a row after a first one on a new filter; WORK_LIMIT ${WORK_LIMIT} live states read`);
console.log('| list | line | states read | examined to the end | first call ms | median ms | max ms | median / baseline |');
console.log('|---|---|---:|---|---:|---:|---:|---:|');
// The baseline, then each list's worst line by median.
const worst = LISTS.map((list) => rows.filter((row) => row.list === list.name).sort((a, b) => b.medianMs - a.medianMs)[0]);
for (const row of [baseline, ...worst]) {
  if (row === undefined) continue;
  const ratio = baseline === undefined || baseline.medianMs === 0 ? '?' : (row.medianMs / baseline.medianMs).toFixed(1);
  console.log(`| ${row.list} | ${row.line} | ${row.steps} | ${row.whole ? 'yes' : 'no (bound)'} | ${row.firstMs.toFixed(2)} | ${row.medianMs.toFixed(2)} | ${row.maxMs.toFixed(2)} | ${ratio} |`);
}
const slowest = rows.reduce((a, b) => (Math.max(b.firstMs, b.maxMs) > Math.max(a.firstMs, a.maxMs) ? b : a));
console.log(`slowest call, first calls included: ${Math.max(slowest.firstMs, slowest.maxMs).toFixed(2)} ms (${slowest.list}, ${slowest.line}); goal about 10 ms`);
const fresh = freshProcesses();
const list = (key: keyof FreshProcess): string => fresh.map((run) => run[key].toFixed(1)).join(', ');
console.log(`in 5 fresh processes, ${I_L_1024?.name ?? '?'}, ${BANG?.name ?? '?'}: first line ${list('firstLineMs')} ms, second ${list('secondLineMs')} ms; building the process's first filter (confusables table and warm-up, once) ${list('builtMs')} ms`);
const bounded = rows.filter((row) => !row.whole);
console.log(`rows at the bound: ${bounded.length} of ${rows.length}, of the lists: ${[...new Set(bounded.map((row) => row.list))].join('; ') || 'none'}`);
