// The kicks the rcon adapter sends at the door (removePlayer) and to repeat offenders: 7 Days to Die's `kick` by the
// id the player has (EOS, else Steam), Minecraft's `kick <name>` only for a name the game's rule takes, and a host's
// kickCommand whose {name} must reach the game unchanged. Fuzzed with the suite's hostile text against the console
// model (test/fixtures/consoleModel.ts): every kick is one well-formed command for the right player, or none.
import { describe, expect, it } from 'vitest';
import { compileCommandTemplate } from '../../adapters/rcon/commandTemplate.js';
import { MINECRAFT_NAME_PATTERN, SEVEN_DAYS_TEXT_RULES, SQUAD_TEXT_RULES, checkPlayerId, minecraftKick, sevenDaysKick } from '../../adapters/rcon/commandText.js';
import { InvalidPlayerIdError, UnaddressableNameError } from '../../adapters/rcon/errors.js';
import { problemsWithCommand, splitConsoleArguments } from '../fixtures/consoleModel.js';
import { createHostileTextGenerator } from '../fixtures/hostileText.js';

const STEAM = '76561198000000001';
const EOS = '0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1';

describe('sevenDaysKick', () => {
  it('gives each id its own platform prefix', () => {
    expect(sevenDaysKick(EOS, 'bye')).toBe(`kick "EOS_${EOS}" "bye"`);
    expect(sevenDaysKick(STEAM, 'bye')).toBe(`kick "Steam_${STEAM}" "bye"`);
    expect(sevenDaysKick(EOS.toUpperCase(), 'bye')).toBe(`kick "EOS_${EOS}" "bye"`);
  });

  it('builds nothing for an id of no kind, and cleans the reason', () => {
    expect(() => sevenDaysKick('XBL_2535420000000001', 'bye')).toThrow(InvalidPlayerIdError);
    expect(() => sevenDaysKick(`${STEAM}" "x`, 'bye')).toThrow(InvalidPlayerIdError);
    expect(sevenDaysKick(STEAM, 'say "hi"\r\nshutdown')).toBe(`kick "Steam_${STEAM}" "say 'hi' shutdown"`);
  });
});

describe('minecraftKick', () => {
  it('kicks a name the rule takes, with the reason cleaned (no selector, no § code)', () => {
    expect(minecraftKick('Steve_1', '§cBanned @a\nnow')).toBe('kick Steve_1 cBanned ＠a now');
    expect(minecraftKick('.BedrockGuy', 'bye')).toBe('kick .BedrockGuy bye');
  });

  it.each(['@a', 'Bob Smith', 'Bob"', 'Name_longer_than_16', '', 'Stéve', 'a\nb'])('refuses the name %j', (name) => {
    expect(() => minecraftKick(name, 'bye')).toThrow(UnaddressableNameError);
  });
});

describe('kickCommand templates: {name} reaches the game unchanged, or no command', () => {
  const rules = SQUAD_TEXT_RULES;
  it('takes a name with a space inside the template quotes, not bare', () => {
    const quoted = compileCommandTemplate('kick "{name}" {message}', 'kickCommand', rules, false, { exactName: true });
    expect(quoted.expand({ name: 'Bob Smith', message: 'bye' })).toBe('kick "Bob Smith" bye');
    const bare = compileCommandTemplate('kick {name} {message}', 'kickCommand', rules, false, { exactName: true });
    expect(() => bare.expand({ name: 'Bob Smith', message: 'bye' })).toThrow(UnaddressableNameError);
    expect(bare.expand({ name: 'Bob', message: 'bye' })).toBe('kick Bob bye');
  });

  it('refuses a name the cleaning would change, or none at all', () => {
    const kick = compileCommandTemplate('kick "{name}"', 'kickCommand', rules, false, { exactName: true });
    for (const name of ['Bob"', 'Bob;x', 'Bo|b', 'a//b', 'Bob  Smith', ' Bob', '\u202eboB', '']) {
      expect(() => kick.expand({ name, message: '' })).toThrow(UnaddressableNameError);
    }
  });

  it('leaves messages as they were: a notifyCommand still cleans a name rather than refusing it', () => {
    const notify = compileCommandTemplate('pm "{name}" {message}', 'notifyCommand', rules, true);
    expect(notify.expand({ name: 'Bob"', message: 'hi' })).toBe(`pm "Bob'" hi`);
  });
});

const FUZZ_COUNT = 3_000;

describe('every kick is one well-formed command for the right player, or none', () => {
  it('7dtd and a kickCommand by id, on hostile reasons and ids', () => {
    const generator = createHostileTextGenerator(0x41c4);
    const template = compileCommandTemplate('kickplayer platformid {steamId} {message}', 'kickCommand', SEVEN_DAYS_TEXT_RULES, false, { exactName: true });
    const failures: string[] = [];
    for (let index = 0; index < FUZZ_COUNT; index++) {
      const id = generator.id();
      const reason = generator.text();
      const valid = checkPlayerId(id);
      try {
        const command = sevenDaysKick(id, reason);
        if (valid === undefined) failures.push(`#${index} 7dtd: built for an invalid id`);
        const prefixed = `${valid?.kind === 'eos' ? 'EOS' : 'Steam'}_${valid?.id ?? ''}`;
        const problems = problemsWithCommand(command, { verb: 'kick', id: prefixed, maxTextLength: SEVEN_DAYS_TEXT_RULES.maxLength + 2 });
        if (problems.length > 0) failures.push(`#${index} 7dtd: ${problems.join('; ')}`);
      } catch (error) {
        if (!(error instanceof InvalidPlayerIdError) || valid !== undefined) failures.push(`#${index} 7dtd: unexpected ${String(error)}`);
      }
      const steam = checkPlayerId(id, ['steam']);
      try {
        const command = template.expand({ steamId: id, message: reason });
        if (steam === undefined) failures.push(`#${index} template: built for an invalid id`);
        const args = splitConsoleArguments(command);
        if (args[0] !== 'kickplayer' || args[1] !== 'platformid' || args[2] !== steam?.id) failures.push(`#${index} template: addresses ${JSON.stringify(args.slice(0, 3))}`);
        const problems = problemsWithCommand(command, { verb: 'kickplayer' });
        if (problems.length > 0) failures.push(`#${index} template: ${problems.join('; ')}`);
      } catch (error) {
        if (!(error instanceof InvalidPlayerIdError) || steam !== undefined) failures.push(`#${index} template: unexpected ${String(error)}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('minecraft and a kickCommand by name, on hostile names', () => {
    const generator = createHostileTextGenerator(0x41c5);
    const template = compileCommandTemplate('kick {name} {message}', 'kickCommand', SQUAD_TEXT_RULES, false, { exactName: true });
    const failures: string[] = [];
    for (let index = 0; index < FUZZ_COUNT; index++) {
      // Hostile text, and every fourth a plain name, so both outcomes are exercised.
      const plain = index % 4 === 0;
      const name = plain ? `Player_${index}` : generator.text().slice(0, 24);
      const reason = generator.text();
      const builders: [string, () => string, boolean][] = [
        // Minecraft: built exactly for the names its rule takes.
        ['minecraft', () => minecraftKick(name, reason), MINECRAFT_NAME_PATTERN.test(name)],
        // The template: built at least for every plain name; whatever it builds addresses the name as given.
        ['template', () => template.expand({ name, message: reason }), plain],
      ];
      for (const [label, build, mustBuild] of builders) {
        let command: string;
        try {
          command = build();
        } catch (error) {
          if (!(error instanceof UnaddressableNameError)) failures.push(`#${index} ${label}: unexpected ${String(error)}`);
          else if (mustBuild) failures.push(`#${index} ${label}: refused the name ${JSON.stringify(name)}`);
          continue;
        }
        if (label === 'minecraft' && !mustBuild) failures.push(`#${index} minecraft: kicked a name the rule refuses`);
        const args = splitConsoleArguments(command);
        if (args[1] !== name) failures.push(`#${index} ${label}: addresses ${JSON.stringify(args[1])}, not the name`);
        const problems = problemsWithCommand(command, { verb: 'kick' });
        if (problems.length > 0) failures.push(`#${index} ${label}: ${problems.join('; ')}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
