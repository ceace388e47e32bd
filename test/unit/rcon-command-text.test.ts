// The sanitiser every game command's text passes through: each rule on its own, the id gate, the command builders,
// the notifyCommand template, and a seeded fuzz that sends thousands of hostile strings through every builder and
// reads the result back with a model of the game consoles (test/fixtures/consoleModel.ts).
import { describe, expect, it } from 'vitest';
import {
  ARK_TEXT_RULES,
  RUST_TEXT_RULES,
  SQUAD_TEXT_RULES,
  arkGsaMute,
  arkServerChatTo,
  arkServerChatToPlayer,
  checkPlayerId,
  cleanCommandText,
  commandPlayerId,
  quotedName,
  requirePlayerId,
  rustMute,
  rustUnmute,
  squadAdminWarn,
  type CommandTextRules,
} from '../../adapters/rcon/commandText.js';
import { compileNotifyTemplate } from '../../adapters/rcon/commandTemplate.js';
import { InvalidCommandTemplateError, InvalidPlayerIdError, UnaddressableNameError } from '../../adapters/rcon/errors.js';
import { characterCount } from '../../src/gsa/client/validation.js';
import { problemsWithCommand, splitConsoleArguments, splitConsoleCommands } from '../fixtures/consoleModel.js';
import { createHostileTextGenerator, seededRandom } from '../fixtures/hostileText.js';

const STEAM = '76561198000000001';
const EOS = '0002aaaa000000000000000000000001';
const UNICODE: CommandTextRules = { maxLength: 100, asciiOnly: false, fallback: 'fallback' };

describe('cleanCommandText', () => {
  it('leaves ordinary text alone', () => {
    expect(cleanCommandText('You are muted for 10 minutes. Appeal at example.com', UNICODE)).toBe('You are muted for 10 minutes. Appeal at example.com');
    expect(cleanCommandText("it's 5/5, (really): [yes]!", UNICODE)).toBe("it's 5/5, (really): [yes]!");
  });

  it('turns line breaks and tabs into one space so the line cannot end early', () => {
    expect(cleanCommandText('a\r\nb\nc\rd\te\u2028f\u2029g\u0085h\vi\fj', UNICODE)).toBe('a b c d e f g h i j');
    expect(cleanCommandText('a\r\n\r\n\r\nb', UNICODE)).toBe('a b');
  });

  it('removes NUL, other C0 and C1 controls, DEL, bidi overrides, zero-width characters and lone surrogates', () => {
    expect(cleanCommandText('a\0b\u0001c\u001bd\u007fe\u0090f\u009fg', UNICODE)).toBe('abcdefg');
    expect(cleanCommandText('abc\u202edcba\u202c \u2066x\u2069', UNICODE)).toBe('abcdcba x');
    expect(cleanCommandText('a\u200bb\ufeffc\u00add', UNICODE)).toBe('abcd');
    expect(cleanCommandText('a\ud800b\udc00c', UNICODE)).toBe('abc');
    expect(cleanCommandText('😀 ok', UNICODE)).toBe('😀 ok');
  });

  it('replaces double quotes with single ones and backslashes with slashes', () => {
    expect(cleanCommandText('say "hi" \\" there', UNICODE)).toBe("say 'hi' /' there");
  });

  it('drops pipes and turns semicolons into commas (Unreal and Source command separators)', () => {
    expect(cleanCommandText('a|AdminKick 0', UNICODE)).toBe('aAdminKick 0');
    expect(cleanCommandText('stop; quit;;', UNICODE)).toBe('stop, quit,,');
  });

  it('breaks every // so no comment can hide the rest, also when backslashes would have made one', () => {
    expect(cleanCommandText('see http://x.y //comment', UNICODE)).toBe('see http:/ /x.y / /comment');
    expect(cleanCommandText('////', UNICODE)).toBe('/ / / /');
    expect(cleanCommandText('\\\\x', UNICODE)).toBe('/ /x');
  });

  it('catches full-width look-alikes by normalising first', () => {
    expect(cleanCommandText('a｜b；c＂d／／e', UNICODE)).toBe("ab,c'd/ /e");
  });

  it('collapses spaces and trims', () => {
    expect(cleanCommandText('   a  \u00a0 b\u3000c   ', UNICODE)).toBe('a b c');
  });

  it('caps the length in code points without splitting a surrogate pair', () => {
    expect(cleanCommandText('x'.repeat(500), UNICODE)).toHaveLength(100);
    const emoji = cleanCommandText('😀'.repeat(150), UNICODE);
    expect(characterCount(emoji)).toBe(100);
    expect(emoji).not.toMatch(/\p{Cs}/u);
    expect(cleanCommandText(`${'a'.repeat(99)}     b`, UNICODE)).toBe('a'.repeat(99));
  });

  it('never returns an empty string: the fallback takes its place, and a fallback that cleans to nothing becomes -', () => {
    expect(cleanCommandText('', UNICODE)).toBe('fallback');
    expect(cleanCommandText(' \r\n\0|||\u202e ', UNICODE)).toBe('fallback');
    expect(cleanCommandText('', { ...UNICODE, fallback: '|\n' })).toBe('-');
  });

  it('with asciiOnly (ARK) strips accents, spells out a few letters and drops the rest', () => {
    expect(cleanCommandText('Größe Ærø café naïve “quoted” – ok…', ARK_TEXT_RULES)).toBe("Grosse AEro cafe naive 'quoted' - ok...");
    expect(cleanCommandText('Привет 漢字 😀 hi', ARK_TEXT_RULES)).toBe('hi');
    expect(cleanCommandText('Привет', ARK_TEXT_RULES)).toBe(ARK_TEXT_RULES.fallback);
  });

  it('is idempotent', () => {
    const generator = createHostileTextGenerator(7);
    for (let index = 0; index < 2000; index++) {
      const text = generator.text();
      for (const rules of [ARK_TEXT_RULES, SQUAD_TEXT_RULES, UNICODE]) {
        const once = cleanCommandText(text, rules);
        expect(cleanCommandText(once, rules)).toBe(once);
      }
    }
  });
});

describe('player ids', () => {
  it('accepts a Steam64 and an EOS id (lowercased), nothing else', () => {
    expect(checkPlayerId(STEAM)).toEqual({ kind: 'steam', id: STEAM });
    expect(checkPlayerId(EOS.toUpperCase())).toEqual({ kind: 'eos', id: EOS });
    for (const bad of ['', '7656119800000000', '765611980000000012', `${STEAM} `, ` ${STEAM}`, `${STEAM}\n`, `"${STEAM}"`, EOS.slice(1), `${EOS.slice(1)}g`, `${STEAM}|quit`]) {
      expect(checkPlayerId(bad)).toBeUndefined();
    }
    expect(checkPlayerId(STEAM, ['eos'])).toBeUndefined();
    expect(checkPlayerId(EOS, ['steam'])).toBeUndefined();
  });

  it('refuses an invalid id with a coded error that does not echo it', () => {
    const error = (() => {
      try {
        requirePlayerId('76561198000000001"|DoExit', ['steam']);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidPlayerIdError);
    expect((error as InvalidPlayerIdError).code).toBe('invalid_player_id');
    expect((error as InvalidPlayerIdError).message).not.toContain('DoExit');
    expect((error as InvalidPlayerIdError).message).toContain('Steam64');
  });

  it('picks the id a command addresses in the preferred order', () => {
    expect(commandPlayerId({ steamId: STEAM, eosId: EOS })).toEqual({ kind: 'eos', id: EOS });
    expect(commandPlayerId({ steamId: STEAM, eosId: EOS }, ['steam'])).toEqual({ kind: 'steam', id: STEAM });
    expect(commandPlayerId({ steamId: STEAM, eosId: 'junk' })).toEqual({ kind: 'steam', id: STEAM });
    expect(() => commandPlayerId({ eosId: EOS }, ['steam'])).toThrow(InvalidPlayerIdError);
    expect(() => commandPlayerId({})).toThrow(InvalidPlayerIdError);
  });
});

describe('command builders', () => {
  it('builds ARK ServerChatTo with a quoted id and ASCII text', () => {
    expect(arkServerChatTo(STEAM, 'You are muted.')).toBe(`ServerChatTo "${STEAM}" You are muted.`);
    expect(arkServerChatTo(EOS, 'Stummgeschaltet für "Spam" | bis morgen; // ok\nDoExit')).toBe(
      `ServerChatTo "${EOS}" Stummgeschaltet fur 'Spam' bis morgen, / / ok DoExit`,
    );
  });

  it('builds ARK ServerChatToPlayer only for a name that needs no cleaning', () => {
    expect(arkServerChatToPlayer('Rex Hunter (Bob): x', 'You are muted.')).toBe('ServerChatToPlayer "Rex Hunter (Bob): x" You are muted.');
    for (const name of ['Bob "the" builder', 'a|b', 'x\ny', 'Ünïcødé', '', ' padded', 'a  b', 'semi;colon', 'c//d']) {
      expect(() => arkServerChatToPlayer(name, 'x'), name).toThrow(UnaddressableNameError);
    }
  });

  it('builds the GameServerApp ASA mod mute with a bare id', () => {
    expect(arkGsaMute(EOS, true, 'Muted "spam" | 1h')).toBe(`scriptcommand gsamute ${EOS} true Muted 'spam' 1h`);
    expect(arkGsaMute(EOS, false, 'ignored')).toBe(`scriptcommand gsamute ${EOS} false`);
    expect(() => arkGsaMute(`${EOS} true x | DoExit`, true, 'x')).toThrow(InvalidPlayerIdError);
  });

  it('builds Squad AdminWarn with Unicode kept', () => {
    expect(squadAdminWarn(EOS, 'Вы заглушены "до завтра"')).toBe(`AdminWarn "${EOS}" Вы заглушены 'до завтра'`);
    expect(squadAdminWarn(STEAM, '')).toBe(`AdminWarn "${STEAM}" ${SQUAD_TEXT_RULES.fallback}`);
  });

  it('builds Rust mute and unmute for a Steam64 only', () => {
    expect(rustMute(STEAM)).toBe(`mute ${STEAM}`);
    expect(rustUnmute(STEAM)).toBe(`unmute ${STEAM}`);
    expect(() => rustMute(EOS)).toThrow(InvalidPlayerIdError);
    expect(() => rustUnmute(`${STEAM}; quit`)).toThrow(InvalidPlayerIdError);
  });

  it('builds no command at all for an invalid id', () => {
    expect(() => arkServerChatTo(`${STEAM}" | DoExit //`, 'x')).toThrow(InvalidPlayerIdError);
    expect(() => squadAdminWarn('Bob', 'x')).toThrow(InvalidPlayerIdError);
  });

  it('quotes a name after cleaning it, and names an empty one', () => {
    expect(quotedName('Bob "the" | builder', SQUAD_TEXT_RULES)).toBe(`"Bob 'the' builder"`);
    expect(quotedName('\u202e\n', SQUAD_TEXT_RULES)).toBe('"player"');
    expect(quotedName('trailing backslash\\', SQUAD_TEXT_RULES)).toBe('"trailing backslash/"');
  });
});

describe('compileNotifyTemplate', () => {
  it('expands the placeholders with a validated id and cleaned values', () => {
    const notify = compileNotifyTemplate('pm {steamId} "{message}"');
    expect(notify({ steamId: STEAM, message: 'Muted "for spam" | bye' })).toBe(`pm ${STEAM} "Muted 'for spam' bye"`);
    const named = compileNotifyTemplate('say "{name}: {message}"');
    expect(named({ steamId: 'unused', name: 'Bob;quit', message: 'hi' })).toBe(`say "Bob,quit: hi"`);
    expect(named({ steamId: 'unused', message: '' })).toBe(`say "player: ${RUST_TEXT_RULES.fallback}"`);
  });

  it('breaks a // formed where the template meets a value', () => {
    const notify = compileNotifyTemplate('tell {steamId} /{message}');
    expect(notify({ steamId: STEAM, message: '/ban all' })).toBe(`tell ${STEAM} / /ban all`);
  });

  it('refuses to expand for an invalid id', () => {
    expect(() => compileNotifyTemplate('pm {steamId} {message}')({ steamId: `${STEAM} ; quit`, message: 'x' })).toThrow(InvalidPlayerIdError);
  });

  it.each([
    ['pm {steamid} {message}', /unknown placeholder/],
    ['pm {steamId}', /must contain \{message\}/],
    ['pm {steamId} {message}; quit', /must not contain/],
    ['pm {steamId} {message} | quit', /must not contain/],
    ['pm {steamId} {message} // x', /must not contain/],
    ['pm {steamId} {{message}', /must not contain/],
    ['pm {steamId} "{message}', /unbalanced/],
    ['pm {steamId}\n{message}', /one line/],
    ['{message}', /command word/],
  ])('refuses the template %j', (template, message) => {
    expect(() => compileNotifyTemplate(template)).toThrow(InvalidCommandTemplateError);
    expect(() => compileNotifyTemplate(template)).toThrow(message);
  });
});

describe('the console model the fuzz relies on', () => {
  it('splits the way the reference describes, so a naive builder fails the check', () => {
    expect(splitConsoleCommands('a "b|c" | d', 'unreal')).toEqual(['a "b|c"', 'd']);
    expect(splitConsoleCommands('a "b;c" ; d', 'source')).toEqual(['a "b;c"', 'd']);
    expect(splitConsoleCommands('a // b | c', 'unreal')).toEqual(['a']);
    expect(splitConsoleCommands('a "x\nb', 'unreal')).toEqual(['a "x', 'b']);
    expect(splitConsoleCommands('a\0b', 'source')).toEqual(['a']);
    expect(splitConsoleArguments('ServerChatTo "765 61" hello  world')).toEqual(['ServerChatTo', '765 61', 'hello', 'world']);
    const naive = `ServerChatTo "${STEAM}" hi" | DoExit`;
    expect(problemsWithCommand(naive, { verb: 'ServerChatTo', id: STEAM })).not.toEqual([]);
    expect(problemsWithCommand(`ServerChatTo "${STEAM}" fine`, { verb: 'ServerChatTo', id: STEAM })).toEqual([]);
  });
});

/** The fuzz's numbers, named in the report: change them only together with it. */
const FUZZ_SEED = 0x8e1c0de;
const FUZZ_COUNT = 10_000;

describe(`fuzz: ${FUZZ_COUNT} hostile strings per builder, seed ${FUZZ_SEED}`, () => {
  it('every ARK ServerChatTo and Squad AdminWarn is one well-formed command for the right player, or none for an invalid id', () => {
    const generator = createHostileTextGenerator(FUZZ_SEED);
    const failures: string[] = [];
    let built = 0;
    let refused = 0;
    for (let index = 0; index < FUZZ_COUNT; index++) {
      const id = generator.id();
      const text = generator.text();
      const valid = checkPlayerId(id);
      for (const [verb, build, rules] of [
        ['ServerChatTo', arkServerChatTo, ARK_TEXT_RULES],
        ['AdminWarn', squadAdminWarn, SQUAD_TEXT_RULES],
      ] as const) {
        let command: string | undefined;
        try {
          command = build(id, text, rules);
        } catch (error) {
          if (!(error instanceof InvalidPlayerIdError) || valid !== undefined) failures.push(`#${index} ${verb}: unexpected ${String(error)}`);
          refused++;
          continue;
        }
        built++;
        if (valid === undefined) failures.push(`#${index} ${verb}: built a command for an invalid id ${JSON.stringify(id)}`);
        const problems = problemsWithCommand(command, { verb, id: valid?.id, maxTextLength: rules.maxLength, asciiOnly: rules.asciiOnly });
        if (problems.length > 0) failures.push(`#${index} ${verb}: ${problems.join('; ')} in ${JSON.stringify(command.slice(0, 120))}`);
      }
    }
    // The mod's mute: `scriptcommand gsamute <id> true <text>` or `… <id> false`, one command, the id as the second argument.
    const mutes = createHostileTextGenerator(FUZZ_SEED + 5);
    for (let index = 0; index < FUZZ_COUNT; index++) {
      const id = mutes.id();
      const valid = checkPlayerId(id);
      let command: string;
      try {
        command = arkGsaMute(id, index % 2 === 0, mutes.text());
      } catch (error) {
        if (!(error instanceof InvalidPlayerIdError) || valid !== undefined) failures.push(`#${index} gsamute: unexpected ${String(error)}`);
        continue;
      }
      const args = splitConsoleArguments(command);
      const problems = problemsWithCommand(command, { verb: 'scriptcommand' });
      const muting = index % 2 === 0;
      if (args[1] !== 'gsamute' || args[2] !== valid?.id || args[3] !== String(muting) || (muting ? args.length < 5 : args.length !== 4)) problems.push('arguments out of place');
      if (problems.length > 0) failures.push(`#${index} gsamute: ${problems.join('; ')} in ${JSON.stringify(command.slice(0, 120))}`);
    }
    // Addressing by name: a hostile name is refused, or placed whole as one quoted argument.
    const names = createHostileTextGenerator(FUZZ_SEED + 4);
    let addressed = 0;
    for (let index = 0; index < FUZZ_COUNT; index++) {
      // Half the names are plain words, so the accepted path is exercised too.
      const name = index % 2 === 0 ? names.text() : `Player ${names.text().replace(/[^A-Za-z0-9]/g, '').slice(0, 20)}`.trim();
      let command: string;
      try {
        command = arkServerChatToPlayer(name, names.text());
      } catch (error) {
        if (!(error instanceof UnaddressableNameError)) failures.push(`#${index} ServerChatToPlayer: unexpected ${String(error)}`);
        continue;
      }
      addressed++;
      const problems = problemsWithCommand(command, { verb: 'ServerChatToPlayer', id: name, maxTextLength: ARK_TEXT_RULES.maxLength, asciiOnly: true });
      if (problems.length > 0) failures.push(`#${index} ServerChatToPlayer: ${problems.join('; ')} in ${JSON.stringify(command.slice(0, 120))}`);
    }
    expect(addressed).toBeGreaterThan(FUZZ_COUNT * 0.4);
    expect(failures.slice(0, 10)).toEqual([]);
    // Both paths were exercised in earnest.
    expect(built).toBeGreaterThan(FUZZ_COUNT * 0.6);
    expect(refused).toBeGreaterThan(FUZZ_COUNT * 0.3);
  });

  it('every Rust mute, unmute and notifyCommand is one well-formed command, or none for an invalid id', () => {
    const generator = createHostileTextGenerator(FUZZ_SEED + 1);
    const notify = compileNotifyTemplate('pm {steamId} "{name}: {message}"');
    const failures: string[] = [];
    for (let index = 0; index < FUZZ_COUNT; index++) {
      const id = generator.id();
      const name = generator.text();
      const message = generator.text();
      const valid = checkPlayerId(id, ['steam']);
      const builders: [string, () => string][] = [
        ['mute', () => rustMute(id)],
        ['unmute', () => rustUnmute(id)],
        ['pm', () => notify({ steamId: id, name, message })],
      ];
      for (const [verb, build] of builders) {
        let command: string;
        try {
          command = build();
        } catch (error) {
          if (!(error instanceof InvalidPlayerIdError) || valid !== undefined) failures.push(`#${index} ${verb}: unexpected ${String(error)}`);
          continue;
        }
        if (valid === undefined) failures.push(`#${index} ${verb}: built a command for an invalid id`);
        const problems = problemsWithCommand(command, { verb, id: verb === 'pm' ? valid?.id : undefined });
        if (verb !== 'pm' && command !== `${verb} ${valid?.id ?? ''}`) problems.push('not exactly "<verb> <steamid>"');
        if (problems.length > 0) failures.push(`#${index} ${verb}: ${problems.join('; ')} in ${JSON.stringify(command.slice(0, 120))}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('text made only of safe characters arrives unchanged (spaces collapsed, cut to the cap)', () => {
    const random = seededRandom(FUZZ_SEED + 3);
    const safe = "abcXYZ019 .,!?'()[]:-_+=*#@%&<>~/";
    for (let index = 0; index < FUZZ_COUNT; index++) {
      let text = '';
      const length = Math.floor(random() * 300);
      for (let char = 0; char < length; char++) text += safe.charAt(Math.floor(random() * safe.length));
      const expected = text.replace(/\/(?=\/)/g, '/ ').replace(/ +/g, ' ').trim().slice(0, SQUAD_TEXT_RULES.maxLength).trim() || SQUAD_TEXT_RULES.fallback;
      expect(cleanCommandText(text, SQUAD_TEXT_RULES)).toBe(expected);
    }
  });

  it('every cleaned text and quoted name keeps the rules: non-empty, capped, no dangerous character', () => {
    const generator = createHostileTextGenerator(FUZZ_SEED + 2);
    const failures: string[] = [];
    for (let index = 0; index < FUZZ_COUNT; index++) {
      const text = generator.text();
      for (const rules of [ARK_TEXT_RULES, SQUAD_TEXT_RULES, RUST_TEXT_RULES]) {
        const cleaned = cleanCommandText(text, rules);
        const name = quotedName(text, rules);
        const bad =
          cleaned.length === 0 ||
          characterCount(cleaned) > rules.maxLength ||
          /["|;\\\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]|\/\//u.test(cleaned) ||
          cleaned !== cleaned.trim() ||
          (rules.asciiOnly && /[^\x20-\x7e]/.test(cleaned)) ||
          splitConsoleArguments(`X ${name}`).length !== 2;
        if (bad) failures.push(`#${index}: ${JSON.stringify(cleaned.slice(0, 80))}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
