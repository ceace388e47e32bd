// Benchmark: the minecraft profile's log reader (adapters/rcon/profiles/minecraft.ts) on a mix of real line shapes
// (startup noise with colons, Forge and Arclight logger fields, chat, commands, /me), next to a baseline in the same
// run: reading only each line's head (minecraftMessageOf), which every reading needs anyway. The reader is given the
// player list as the adapter gives it (a new array per line) with 100 listed players, and again after 1000 logins
// it remembers (the most it keeps), the worst case for the /me and chat-plugin checks. Ratios matter; absolute
// numbers on a shared 2-core machine do not. Measures only; never used by the product.
//
//   node dist/bench/minecraft-log-lines.js [lines] [rounds]

import { minecraftProfile } from '../adapters/rcon/profiles/minecraft.js';
import { minecraftMessageOf } from '../adapters/rcon/profiles/minecraftLines.js';

const lines = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);

const LISTED = Array.from({ length: 100 }, (_, index) => `Player_${String(index)}`);
const SHAPES = [
  '[00:53:11] [Server thread/WARN] [ne.mi.co.ForgeConfigSpec/CORE]: Incorrect key server.zombieBabyChance was corrected from null to 0.05',
  '[13:22:09 INFO] [Minecraft]: Hopper Transfer: 8 Hopper Check: 1 Hopper Amount: 1 Hopper Can Load Chunks: false',
  '[01:08:48] [Server thread/INFO]: Entity Tracking Range: Pl 48 / An 48 / Mo 48 / Mi 32 / Other 64',
  '[12:00:00] [Async Chat Thread - #0/INFO]: [Not Secure] <Player_5> hello there',
  '[01:09:31] [Netty Server IO #2/INFO]: <\u00a7ePlayer_6\u00a7r> hey cat',
  '[12:00:00] [Server thread/INFO]: Player_7 issued server command: /tps',
  '[08:33:10] [Server thread/INFO]: * Player_8 myserver.example NEW SERVER COME JOIN',
  '[17:42:50 INFO]: [Admin] Player_9: lol',
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Lines per second of `read` over `lines` lines, the list handed over as a fresh array each line. */
function measure(read: (line: string, listed: readonly string[]) => unknown): number {
  const started = performance.now();
  for (let index = 0; index < lines; index++) read(SHAPES[index % SHAPES.length] ?? '', LISTED.slice());
  return lines / ((performance.now() - started) / 1000);
}

function newReader(remembered: number): (line: string, listed: readonly string[]) => unknown {
  const source = minecraftProfile.chat.logFile;
  if (source === undefined) throw new Error('the minecraft profile reads no log');
  const read = source.newReader();
  for (let index = 0; index < remembered; index++) read(`[12:00:00] [Server thread/INFO]: Seen_${String(index)} joined the game`, []);
  return read;
}

const sides: { readonly name: string; readonly run: () => number }[] = [
  { name: 'baseline: the head only (minecraftMessageOf)', run: () => measure((line) => minecraftMessageOf(line)) },
  { name: 'reader, 100 listed', run: () => measure(newReader(0)) },
  { name: 'reader, 100 listed + 1000 remembered logins', run: () => measure(newReader(1_000)) },
];
const results = new Map<string, number[]>(sides.map((side) => [side.name, []]));
for (let round = 0; round < rounds; round++) {
  // Rotate the order so no side always runs on a cold or a warm JIT.
  for (let offset = 0; offset < sides.length; offset++) {
    const side = sides[(round + offset) % sides.length];
    if (side !== undefined) results.get(side.name)?.push(side.run());
  }
}
const baseline = median(results.get(sides[0]?.name ?? '') ?? []);
console.log(`minecraft log lines: ${String(lines)} lines a round, ${String(rounds)} rounds, medians`);
console.log('| side | lines/s | µs/line | vs baseline |');
console.log('|---|---|---|---|');
for (const side of sides) {
  const perSecond = median(results.get(side.name) ?? []);
  console.log(`| ${side.name} | ${perSecond.toFixed(0)} | ${(1e6 / perSecond).toFixed(2)} | ${(baseline / perSecond).toFixed(1)}× slower |`);
}
