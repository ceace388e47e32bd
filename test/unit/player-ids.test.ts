// The one player-id module: each kind with its normalisation, hostile near-misses refused (never repaired), cache
// keys that no two kinds share, and a scan of src/ and adapters/ that fails when an id pattern is written anywhere
// else, so a copy cannot drift from the module.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EOS_ID_PATTERN,
  STEAM_ID_PATTERN,
  checkPlayerId,
  playerKey,
  playerKeyOf,
  type PlayerId,
  type PlayerIdKind,
} from '../../src/ids/playerIds.js';
import { EOS_ID_PATTERN as PUBLIC_EOS_ID_PATTERN, STEAM_ID_PATTERN as PUBLIC_STEAM_ID_PATTERN } from '../../src/index.js';

const ALL: readonly PlayerIdKind[] = ['steam', 'eos', '7dtd', 'mojang'];
const STEAM = '76561198000000001';
const EOS = '0002b5d970954287afdcb5dc35af0424';
const UUID = '069a79f4-44e9-4726-a5be-fca90e38aaf5';

describe('checkPlayerId', () => {
  it('accepts a Steam64 id as it is', () => {
    expect(checkPlayerId(STEAM, ALL)).toEqual({ kind: 'steam', id: STEAM });
  });

  it('accepts an EOS id in either case and lowercases it', () => {
    expect(checkPlayerId(EOS.toUpperCase(), ['eos'])).toEqual({ kind: 'eos', id: EOS });
  });

  it('accepts the 7 Days to Die platform ids, lowercasing only the hex of an EOS_ id', () => {
    expect(checkPlayerId(`Steam_${STEAM}`, ALL)).toEqual({ kind: '7dtd', id: `Steam_${STEAM}` });
    expect(checkPlayerId(`EOS_${EOS.toUpperCase()}`, ALL)).toEqual({ kind: '7dtd', id: `EOS_${EOS}` });
    expect(checkPlayerId('XBL_2535405123456789', ALL)).toEqual({ kind: '7dtd', id: 'XBL_2535405123456789' });
    expect(checkPlayerId('PSN_ab-CD_12', ALL)).toEqual({ kind: '7dtd', id: 'PSN_ab-CD_12' });
  });

  it('accepts a Mojang UUID dashed or undashed and gives it dashed and lowercase', () => {
    expect(checkPlayerId(UUID.toUpperCase(), ['mojang'])).toEqual({ kind: 'mojang', id: UUID });
    expect(checkPlayerId(UUID.replaceAll('-', ''), ['mojang'])).toEqual({ kind: 'mojang', id: UUID });
  });

  it('reads an undashed UUID as the first accepted kind it fits', () => {
    const hex = UUID.replaceAll('-', '');
    expect(checkPlayerId(hex, ['eos', 'mojang'])).toEqual({ kind: 'eos', id: hex });
    expect(checkPlayerId(hex, ['mojang', 'eos'])).toEqual({ kind: 'mojang', id: UUID });
  });

  it('refuses a kind the caller does not accept', () => {
    expect(checkPlayerId(STEAM, ['eos', 'mojang', '7dtd'])).toBeUndefined();
    expect(checkPlayerId(EOS, ['steam'])).toBeUndefined();
    expect(checkPlayerId(`Steam_${STEAM}`, ['steam'])).toBeUndefined();
    expect(checkPlayerId(UUID, ['eos'])).toBeUndefined();
  });

  it.each([
    ['16 digits', STEAM.slice(1)],
    ['18 digits', `${STEAM}0`],
    ['a trailing newline', `${STEAM}\n`],
    ['surrounding spaces', ` ${STEAM} `],
    ['full-width digits', '７６５６１１９８０００００００００１'],
    ['a command after the id', `${STEAM};kick all`],
    ['31 hex', EOS.slice(1)],
    ['33 hex', `${EOS}0`],
    ['a non-hex letter', `${EOS.slice(1)}g`],
    ['a prefix in the wrong case', `steam_${STEAM}`],
    ['an unknown platform', 'Local_abc'],
    ['an empty platform id', 'XBL_'],
    ['a quote in a platform id', 'PSN_a"b'],
    ['a pipe in a platform id', 'XBL_a|b'],
    ['a space in a platform id', 'XBL_a b'],
    ['a platform id of 41 characters', `PSN_${'a'.repeat(41)}`],
    ['a Steam_ id of 16 digits', `Steam_${STEAM.slice(1)}`],
    ['misplaced dashes', '069a79f444e9-4726-a5be-fca90e38aaf5'],
    ['a UUID with braces', `{${UUID}}`],
    ['an empty string', ''],
  ])('refuses %s', (_label, id) => {
    expect(checkPlayerId(id, ALL)).toBeUndefined();
  });

  it('keeps the patterns the package exported before the module existed', () => {
    expect(PUBLIC_STEAM_ID_PATTERN).toBe(STEAM_ID_PATTERN);
    expect(PUBLIC_EOS_ID_PATTERN).toBe(EOS_ID_PATTERN);
  });
});

describe('playerKey', () => {
  it('keeps a Steam64 and an EOS id as their own keys (the mute cache format)', () => {
    expect(playerKey({ kind: 'steam', id: STEAM })).toBe(STEAM);
    expect(playerKey({ kind: 'eos', id: EOS.toUpperCase() })).toBe(EOS);
  });

  it('gives the same hex digits read as different kinds different keys', () => {
    const hex = UUID.replaceAll('-', '');
    const asEos = checkPlayerId(hex, ['eos'])!;
    const asMojang = checkPlayerId(hex, ['mojang'])!;
    const asPlatform = checkPlayerId(`EOS_${hex}`, ['7dtd'])!;
    const keys = new Set([playerKey(asEos), playerKey(asMojang), playerKey(asPlatform)]);
    expect(keys.size).toBe(3);
  });

  it('never gives two different (kind, id) pairs one key', () => {
    const ids: PlayerId[] = [];
    for (const raw of [
      STEAM,
      EOS,
      UUID,
      UUID.replaceAll('-', ''),
      `Steam_${STEAM}`,
      `EOS_${EOS}`,
      'XBL_1',
      'PSN_1',
      '00000000000000000000000000000000',
      '00000000-0000-0000-0000-000000000000',
      '12345678901234567',
    ]) {
      for (const kind of ALL) {
        const id = checkPlayerId(raw, [kind]);
        if (id !== undefined) ids.push(id);
      }
    }
    const byKey = new Map<string, string>();
    for (const id of ids) {
      const pair = `${id.kind} ${id.id}`;
      const key = playerKey(id);
      const seen = byKey.get(key);
      if (seen !== undefined) expect(seen).toBe(pair);
      byKey.set(key, pair);
    }
    expect(new Set(ids.map((id) => `${id.kind} ${id.id}`)).size).toBe(byKey.size);
  });
});

describe('playerKeyOf', () => {
  it("is the playerKey of a player's first id of Steam64, EOS, Mojang, whatever else is known", () => {
    const hex = UUID.replaceAll('-', '');
    expect(playerKeyOf({ steamId: STEAM, eosId: EOS, mojangId: UUID })).toBe(playerKey({ kind: 'steam', id: STEAM }));
    expect(playerKeyOf({ eosId: EOS.toUpperCase(), mojangId: UUID })).toBe(playerKey({ kind: 'eos', id: EOS }));
    expect(playerKeyOf({ mojangId: hex })).toBe(playerKey({ kind: 'mojang', id: hex }));
    // The same hex digits as an EOS id and as a Mojang id are two players.
    expect(playerKeyOf({ mojangId: hex })).not.toBe(playerKeyOf({ eosId: hex }));
  });

  it('is undefined for a player with no id', () => {
    expect(playerKeyOf({})).toBeUndefined();
  });
});

describe('one place for id patterns', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const MODULE = 'src/ids/playerIds.ts';
  // A Steam64 or EOS pattern (`{17}`, `{32}`) or a UUID's first group (`{8}-`), outside a comment.
  const ID_PATTERN = /\{17\}|\{32\}|\{8\}-/;

  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  }

  it('finds none in src/ or adapters/ outside src/ids/playerIds.ts', () => {
    const copies: string[] = [];
    for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'adapters'))]) {
      const name = relative(root, file).replaceAll('\\', '/');
      if (name === MODULE) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const code = line.trim();
          if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
          if (ID_PATTERN.test(code)) copies.push(`${name}:${index + 1}: ${code}`);
        });
    }
    expect(copies).toEqual([]);
  });
});
