// Rust WebRCON payloads: the inner JSON of pushed chat, and the playerlist answer. Malformed input is a result
// with a reason, never a throw.
import { describe, expect, it } from 'vitest';
import { parseRustChat, parseRustPlayerList } from '../../adapters/rcon/profiles/rustLines.js';

const STEAM = '76561198000000001';
const steam = (n: number): string => `765611980${String(n).padStart(8, '0')}`;

const chat = (fields: Record<string, unknown>): string => JSON.stringify({ Channel: 0, Message: 'hi', UserId: STEAM, Username: 'Name', Color: '#5af', Time: 1_700_000_000, ...fields });

describe('parseRustChat', () => {
  it('reads a global chat line', () => {
    expect(parseRustChat(chat({}))).toEqual({
      ok: true,
      chat: { kind: 'player', channel: 'global', steamId: STEAM, name: 'Name', text: 'hi', time: 1_700_000_000 },
    });
  });

  it('names the channels, and keeps an unknown one by number', () => {
    expect([0, 1, 3, 4, 5, 6, 9].map((Channel) => {
      const parsed = parseRustChat(chat({ Channel }));
      return parsed.ok ? parsed.chat.channel : parsed.reason;
    })).toEqual(['global', 'team', 'cards', 'local', 'clan', 'external-dm', 'channel-9']);
  });

  it('tells the server\'s own lines apart from player chat', () => {
    expect(parseRustChat(chat({ Channel: 2, UserId: '0', Username: 'SERVER', Message: 'Restarting' }))).toEqual({
      ok: true,
      chat: { kind: 'server', channel: 'server', text: 'Restarting' },
    });
    expect(parseRustChat(chat({ UserId: '0' }))).toMatchObject({ ok: true, chat: { kind: 'server' } });
  });

  it('keeps odd names and text exactly', () => {
    const parsed = parseRustChat(chat({ Username: '[TAG] Bob (the builder): 漢字 😀', Message: '!review 5 "great" | ; // \u202e' }));
    expect(parsed).toMatchObject({ ok: true, chat: { name: '[TAG] Bob (the builder): 漢字 😀', text: '!review 5 "great" | ; // \u202e' } });
  });

  it("takes the text after Better Chat's prefix (titles, then the player's name and \": \"), so a command stays a command", () => {
    const text = (Message: string, Username: string): unknown => {
      const parsed = parseRustChat(chat({ Message, Username }));
      return parsed.ok && parsed.chat.kind === 'player' ? parsed.chat.text : parsed;
    };
    expect(text('[Player] vetmon: !review 5 great server', 'vetmon')).toBe('!review 5 great server');
    expect(text('vetmon: a', 'vetmon')).toBe('a');
    expect(text('[VIP] [Admin] Bob: hi: there', 'Bob')).toBe('hi: there');
    expect(text('[Player] [BAJS] stampe: yo', '[BAJS] stampe')).toBe('yo');
    expect(text('[Player] vetmon: ', 'vetmon')).toBe('');
    // The plugin strips rich text from the console line; a name with tags is matched by its plain form.
    expect(text('[Player] Red: hi', '<color=red>Red</color>')).toBe('hi');
    // Tags left around the prefix (another plugin) do not hide it.
    expect(text('<color=#55aaff>[Player]</color> <color=#5af>vetmon</color>: hi', 'vetmon')).toBe('hi');
  });

  // The name is matched as a person reads it, whatever markup the entry's Username carries; the text after the prefix
  // is kept exactly, markup included (it is the player's). `name` stays the Username as sent (the hostile-input
  // property in rcon-parser-robustness.test.ts reads names back exactly).
  it.each([
    // Better Chat's own markup in the name: colour, then size; the plugin prints the name without it.
    { Username: '[#ff0000]Bob[/#]', Message: '[Player] Bob: hi [#00ff00]there[/#] <b>you</b>', text: 'hi [#00ff00]there[/#] <b>you</b>' },
    { Username: '[+15]Bob[/+]', Message: '[Player] Bob: !review 5 great', text: '!review 5 great' },
    // Rust's rich text around a name with spaces inside the tags: printed trimmed, or with the spaces kept.
    { Username: '<color=red> Bob </color>', Message: '[Player] Bob: hi: there', text: 'hi: there' },
    { Username: '<color=red> Bob </color>', Message: 'Bob: <color=blue>hi</color>', text: '<color=blue>hi</color>' },
    { Username: '<color=red> Bob </color>', Message: '[Player]  Bob : hi', text: 'hi' },
    // Another plugin printing the name as sent, markup and all.
    { Username: '[#ff0000]Bob[/#]', Message: '[#ff0000]Bob[/#]: hi', text: 'hi' },
  ])('finds $Username in the prefix as a person reads it (Bob), and keeps the text after it intact: $Message', ({ Username, Message, text }) => {
    expect(parseRustChat(chat({ Username, Message }))).toEqual({
      ok: true,
      chat: { kind: 'player', channel: 'global', steamId: STEAM, name: Username, text, time: 1_700_000_000 },
    });
  });

  it('never cuts a message that merely contains the name elsewhere', () => {
    for (const Message of ['hello vetmon: how are you', '[vetmon] [Server] Hello mate', 'vetmon is here', 'vetmon:no space', 'I said vetmon: hi']) {
      const parsed = parseRustChat(chat({ Message, Username: 'vetmon' }));
      expect(parsed).toMatchObject({ ok: true, chat: { kind: 'player', text: Message } });
    }
  });

  it('reads a 17-digit UserId written as a JSON number without losing digits', () => {
    const raw = `{"Channel":0,"Message":"hi","UserId":76561198000000001,"Username":"N","Color":"#fff","Time":1}`;
    expect(Number(STEAM).toString()).not.toBe(STEAM); // the reason for the raw read: the number is not exact
    expect(parseRustChat(raw)).toMatchObject({ ok: true, chat: { steamId: STEAM } });
  });

  it('turns malformed payloads into a reason, never a throw', () => {
    const cases = ['', 'not json', '[]', 'null', '"text"', '{"Message":"x"}', chat({ Channel: 'x' }), chat({ Message: 5 }), chat({ UserId: 'abc' }), chat({ UserId: '7656119800000000' }), '{"Channel":0,'];
    for (const payload of cases) {
      const parsed = parseRustChat(payload);
      expect(parsed.ok, payload).toBe(false);
      if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
    }
  });
});

const entry = (n: number, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  SteamID: steam(n),
  OwnerSteamID: '0',
  DisplayName: `Player ${n}`,
  Ping: 30 + n,
  Address: `203.0.113.${n % 250}:${50_000 + n}`,
  ConnectedSeconds: 60 * n,
  VoiationLevel: 0.0,
  CurrentLevel: 0.0,
  UnspentXp: 0.0,
  Health: 87.5,
  ...fields,
});

describe('parseRustPlayerList', () => {
  it('reads players, with odd names kept', () => {
    const list = JSON.stringify([entry(1), entry(2, { DisplayName: '[TAG] Bob (x): "y" 漢字 😀' })], null, 2);
    expect(parseRustPlayerList(list)).toEqual({
      status: 'players',
      players: [
        { steamId: steam(1), name: 'Player 1' },
        { steamId: steam(2), name: '[TAG] Bob (x): "y" 漢字 😀' },
      ],
      unparsed: [],
    });
  });

  it('says nobody is online for []', () => {
    expect(parseRustPlayerList('[]')).toEqual({ status: 'none', players: [], unparsed: [] });
  });

  it('reads SteamIDs written as JSON numbers without losing digits, in order', () => {
    const raw = `[{"SteamID":76561198000000001,"OwnerSteamID":0,"DisplayName":"A"},{"SteamID":"76561198000000002","DisplayName":"B"},{"SteamID":76561198000000003,"DisplayName":"C \\"SteamID\\":1"}]`;
    expect(parseRustPlayerList(raw).players).toEqual([
      { steamId: steam(1), name: 'A' },
      { steamId: steam(2), name: 'B' },
      { steamId: steam(3), name: 'C "SteamID":1' },
    ]);
  });

  it('collects entries it cannot read; an answer of only such entries is unrecognised, not empty', () => {
    const mixed = parseRustPlayerList(JSON.stringify([entry(1), entry(2, { SteamID: 'x' }), 5, null]));
    expect(mixed.status).toBe('players');
    expect(mixed.players).toHaveLength(1);
    expect(mixed.unparsed).toHaveLength(3);
    expect(parseRustPlayerList(JSON.stringify([{ DisplayName: 'no id' }])).status).toBe('unrecognised');
  });

  it('turns a malformed answer into a reason, never a throw', () => {
    for (const payload of ['', 'No players', '{"SteamID":"1"}', '[{', 'null']) {
      const parsed = parseRustPlayerList(payload);
      expect(parsed.status, payload).toBe('unrecognised');
      expect(parsed.unparsed[0]?.reason).toMatch(/playerlist answer is/);
    }
  });

  it('clips a huge garbage answer in what it keeps for the log', () => {
    expect(parseRustPlayerList('x'.repeat(100_000)).unparsed[0]!.line.length).toBeLessThanOrEqual(201);
  });

  it('reads a full 100-player list', () => {
    const parsed = parseRustPlayerList(JSON.stringify(Array.from({ length: 100 }, (_, index) => entry(index))));
    expect(parsed.status).toBe('players');
    expect(parsed.unparsed).toEqual([]);
    expect(parsed.players).toHaveLength(100);
    expect(parsed.players[99]).toEqual({ steamId: steam(99), name: 'Player 99' });
  });
});
