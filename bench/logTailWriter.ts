// The writer side of bench/log-tail: runs in its own process (as a game does) and appends `lines` chat-like lines
// to a file in batches as fast as it can, printing `writing` before the first byte and one JSON line with how long the writing took. Measures only.
//
//   node dist/bench/logTailWriter.js <file> <lines> <linesPerBatch>

import { closeSync, openSync, writeSync } from 'node:fs';

const [file = '', linesArg = '300000', batchArg = '500'] = process.argv.slice(2);
const lines = Number(linesArg);
const perBatch = Number(batchArg);

// ARK-like chat with a few multi-byte characters, CRLF: what the reader decodes and splits in real use.
const line = (n: number): string => `L${n} 2026.11.27-19.00.00: Spielerin Ünal (Tribe Größe): gg, bis später 🎉 ${n}\r\n`;

const fd = openSync(file, 'a');
// Told before the first byte, so the reader's clock starts with the writing (not with this process's start-up).
console.log('writing');
const started = performance.now();
for (let n = 0; n < lines; n += perBatch) {
  let batch = '';
  for (let i = n; i < Math.min(lines, n + perBatch); i++) batch += line(i);
  writeSync(fd, batch);
}
closeSync(fd);
console.log(JSON.stringify({ lines, writeMs: performance.now() - started }));
