// The host's chatPattern (adapters/rcon/reading/chatPattern.ts): the chat plugins' real formats read as a person reads
// them, the semantics the docs promise (search unless anchored, both group spellings, inline flags, an empty name is
// no match, an empty message is one), every refusal with its problem and a message that quotes no more of the pattern
// than the few characters an error points at, and hostile patterns on 16 KiB lines: they return, with the right answer, because the engine is RE2's
// (no test here times anything; a backtracking engine would not come back, and the test would fail on its timeout).
import { describe, expect, it } from 'vitest';
import {
  CHAT_PATTERN_WORK_BUDGET,
  MAX_CHAT_PATTERN_INPUT_LENGTH,
  MAX_CHAT_PATTERN_LENGTH,
  MAX_CHAT_PATTERN_PROGRAM_SIZE,
  chatPatternProblem,
  compileChatPattern,
} from '../../adapters/rcon/reading/chatPattern.js';
import { ChatPatternError, RconError, type ChatPatternProblem } from '../../adapters/rcon/errors.js';
import { createHostileTextGenerator } from '../fixtures/hostileText.js';

/** EssentialsX Chat's `&7[{GROUP}]&r {DISPLAYNAME}&7:&r {MESSAGE}` (its config.yml), colour codes stripped. */
const ESSENTIALS_GROUP = String.raw`^\[(?<group>[^\]]+)\] (?<name>[A-Za-z0-9_]{3,16}): (?<message>.*)$`;
/** A LuckPerms prefix (`[Admin] `) shown by a format such as `{PREFIX}{DISPLAYNAME} » {MESSAGE}`. */
const LUCKPERMS_ARROW = String.raw`^\[[^\]]*\] (?<name>[A-Za-z0-9_]{3,16}) » (?<message>.*)$`;
/** VentureChat's `[G] Steve: hi`: the channel's short name first. */
const VENTURECHAT = String.raw`^\[(?<channel>[A-Za-z]+)\] (?<name>\S+): (?<message>.*)$`;

function refusal(source: string): ChatPatternError {
  try {
    compileChatPattern(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ChatPatternError);
    return error as ChatPatternError;
  }
  throw new Error('expected the pattern to be refused');
}

describe('the chat plugins’ formats', () => {
  it('reads an EssentialsX group format, a LuckPerms prefix and a VentureChat channel', () => {
    expect(compileChatPattern(ESSENTIALS_GROUP).match('[Member] Steve: hi there')).toEqual({ name: 'Steve', message: 'hi there', channel: undefined });
    expect(compileChatPattern(LUCKPERMS_ARROW).match('[Admin] Notch » anyone selling diamonds?')).toEqual({ name: 'Notch', message: 'anyone selling diamonds?', channel: undefined });
    expect(compileChatPattern(VENTURECHAT).match('[G] Steve: hi')).toEqual({ name: 'Steve', message: 'hi', channel: 'G' });
  });

  it('says no to the lines that are not the plugin’s chat', () => {
    const pattern = compileChatPattern(ESSENTIALS_GROUP);
    for (const line of ['Steve joined the game', '<Steve> hi', 'Saving chunks for level \'ServerLevel[world]\'/minecraft:overworld', '[Member] x: too short a name', '']) {
      expect(pattern.match(line)).toBeUndefined();
    }
  });

  it('takes both spellings of a named group, and flags inline at the start', () => {
    expect(compileChatPattern(String.raw`^(?P<name>\w+): (?P<message>.*)$`).match('Steve: hi')).toEqual({ name: 'Steve', message: 'hi', channel: undefined });
    const caseless = compileChatPattern(String.raw`(?i)^\[member\] (?<name>\w+): (?<message>.*)$`);
    expect(caseless.match('[MEMBER] Steve: hi')?.name).toBe('Steve');
    expect(compileChatPattern(String.raw`^\[member\] (?<name>\w+): (?<message>.*)$`).match('[MEMBER] Steve: hi')).toBeUndefined();
  });

  it('searches the whole message part unless the host anchors it', () => {
    expect(compileChatPattern(String.raw`(?<name>\w+) » (?<message>.*)`).match('[Admin] Steve » hi')?.name).toBe('Steve');
    expect(compileChatPattern(String.raw`^(?<name>\w+) » (?<message>.*)`).match('[Admin] Steve » hi')).toBeUndefined();
  });

  it('is no match when the name is empty or did not take part; an empty message and extra groups are fine', () => {
    expect(compileChatPattern(String.raw`^(?<name>\w*): (?<message>.*)$`).match(': hi')).toBeUndefined();
    expect(compileChatPattern(String.raw`^(?:(?<name>\w+) )?» (?<message>.*)$`).match('» hi')).toBeUndefined();
    expect(compileChatPattern(String.raw`^(?<name>\w+): (?<message>.*)$`).match('Steve: ')).toEqual({ name: 'Steve', message: '', channel: undefined });
    expect(compileChatPattern(String.raw`^\[(?<channel>\w*)\] (?<rank>\w+) (?<name>\w+): (?<message>.*)$`).match('[] VIP Steve: hi')).toEqual({ name: 'Steve', message: 'hi', channel: undefined });
  });

  it('matches Unicode as code points: \\p{L} for letters (\\w is ASCII), . for one emoji, lone surrogates kept as they are', () => {
    expect(compileChatPattern(String.raw`^(?<name>\p{L}+): (?<message>.*)$`).match('Jörg: hällo 🎉')).toEqual({ name: 'Jörg', message: 'hällo 🎉', channel: undefined });
    expect(compileChatPattern(String.raw`^(?<name>\w+): (?<message>.*)$`).match('Jörg: hällo')).toBeUndefined();
    expect(compileChatPattern(String.raw`^(?<name>.): (?<message>.*)$`).match('🎉: x')?.name).toBe('🎉');
    expect(compileChatPattern(String.raw`^(?<name>\w+): (?<message>.*)$`).match('Steve: a\ud800b')?.message).toBe('a\ud800b');
  });

  it(`matches a message part up to ${MAX_CHAT_PATTERN_INPUT_LENGTH} characters (the log decoder's cut), and none longer`, () => {
    const pattern = compileChatPattern(String.raw`^(?<name>\w+): (?<message>.*)$`);
    const longest = `Steve: ${'x'.repeat(MAX_CHAT_PATTERN_INPUT_LENGTH - 7)}`;
    expect(pattern.match(longest)?.message).toHaveLength(MAX_CHAT_PATTERN_INPUT_LENGTH - 7);
    expect(pattern.match(`${longest}x`)).toBeUndefined();
  });

  it('reads shorter lines the larger its program, so no line costs more than the work budget', () => {
    for (const format of [ESSENTIALS_GROUP, LUCKPERMS_ARROW, VENTURECHAT]) expect(compileChatPattern(format).maxInputLength).toBe(MAX_CHAT_PATTERN_INPUT_LENGTH);
    const large = compileChatPattern(String.raw`^(?<name>[a-z]{1,100}): (?<message>.*)$`);
    expect(large.maxInputLength).toBe(Math.floor(CHAT_PATTERN_WORK_BUDGET / large.programSize));
    expect(large.maxInputLength).toBeLessThan(MAX_CHAT_PATTERN_INPUT_LENGTH);
    const longest = `steve: ${'x'.repeat(large.maxInputLength - 7)}`;
    expect(large.match(longest)?.name).toBe('steve');
    expect(large.match(`${longest}x`)).toBeUndefined();
  });

  it('keeps the source, and tells the engine and the program size', () => {
    const pattern = compileChatPattern(VENTURECHAT);
    expect(pattern.source).toBe(VENTURECHAT);
    expect(pattern.engine).toBe('re2js');
    expect(pattern.programSize).toBeGreaterThan(0);
    expect(pattern.programSize).toBeLessThanOrEqual(MAX_CHAT_PATTERN_PROGRAM_SIZE);
  });
});

describe('refused at load', () => {
  const tooLong = `(?<name>\\w+): (?<message>.*)${'x'.repeat(MAX_CHAT_PATTERN_LENGTH)}`;
  const cases: [string, string, ChatPatternProblem, string][] = [
    ['empty', '', 'empty', 'must not be empty'],
    ['too long', tooLong, 'too_long', `is ${tooLong.length} characters long; at most ${MAX_CHAT_PATTERN_LENGTH}`],
    ['an unclosed group', String.raw`^(?<name>\w+: (?<message>.*)$`, 'syntax', 'does not compile: missing closing )'],
    ['an unclosed class', String.raw`^(?<name>\w+): (?<message>[^x)$`, 'syntax', 'does not compile: missing closing ] at `[^x)$`'],
    ['a long bad range', String.raw`^(?<name>\w+): (?<message>[\x{10FFFF}-\x{0}])$`, 'syntax', 'does not compile: invalid character class range at character 28'],
    ['a lookahead', String.raw`(?<name>\w+)(?=:) (?<message>.*)`, 'syntax', 'does not compile: invalid or unsupported Perl syntax at `(?=` (RE2 syntax: no lookaround, no backreferences, \\x{00BB} rather than \\u00BB)'],
    ['a backreference', String.raw`(?<name>\w+) \1 (?<message>.*)`, 'syntax', 'does not compile: invalid escape sequence at `\\1` (RE2 syntax: no lookaround, no backreferences, \\x{00BB} rather than \\u00BB)'],
    ['a duplicate group', String.raw`(?<name>\w+) (?<name>\w+) (?<message>.*)`, 'syntax', 'does not compile: duplicate capture group name at `name`'],
    ['no message group', String.raw`^(?<name>\w+): .*$`, 'missing_group', 'has no named group `message`: put (?<message>…) around the chat text'],
    ['no name group', String.raw`^(\w+): (?<message>.*)$`, 'missing_group', "has no named group `name`: put (?<name>…) around the player's name"],
    ['neither group', String.raw`^(\w+): (.*)$`, 'missing_group', "has no named groups `name` and `message`: put (?<name>…) around the player's name and (?<message>…) around the chat text"],
    ['a program too large', String.raw`(?<name>[a-z]{1,200}) (?<message>.*)`, 'too_large', `compiles to 408 instructions; at most ${MAX_CHAT_PATTERN_PROGRAM_SIZE}: use fewer or shorter counted repetitions such as {1,32}, or fewer alternatives`],
  ];

  it.each(cases)('%s: its problem, and a message naming chatPattern', (_label, source, problem, text) => {
    const error = refusal(source);
    expect(error).toBeInstanceOf(RconError);
    expect(error.code).toBe('invalid_chat_pattern');
    expect(error.problem).toBe(problem);
    expect(error.message).toBe(`chatPattern ${text}`);
    expect(chatPatternProblem(source)).toBe(text);
  });

  it('quotes no more of a long pattern than the few characters a syntax error points at', () => {
    const source = `(?<name>\\w+) (?<message>.*)(${'secret-looking-text '.repeat(20)}`;
    expect(refusal(source).message).toBe('chatPattern does not compile: missing closing )');
    expect(refusal(`${'secret-looking-text '.repeat(20)}(?<name>\\w+)(?<message>.*)**`).message).toMatch(/^chatPattern does not compile: invalid nested repetition operator at `\*\*`$/);
  });

  it(`takes a program of ${MAX_CHAT_PATTERN_PROGRAM_SIZE} instructions and refuses one more`, () => {
    // [a-z] repeated is one instruction a copy; the groups, the space and the match add 8.
    const sized = (copies: number): string => `(?<name>[a-z]{${copies}}) (?<message>)`;
    expect(compileChatPattern(sized(MAX_CHAT_PATTERN_PROGRAM_SIZE - 8)).programSize).toBe(MAX_CHAT_PATTERN_PROGRAM_SIZE);
    expect(refusal(sized(MAX_CHAT_PATTERN_PROGRAM_SIZE - 7)).problem).toBe('too_large');
  });
});

describe('hostile patterns on a 16 KiB line', () => {
  const line = 'a'.repeat(MAX_CHAT_PATTERN_INPUT_LENGTH);

  it('runs on RE2, which refuses what only a backtracking engine can do', () => {
    expect(compileChatPattern(String.raw`(?<name>(a|aa)+)+b(?<message>)`).engine).toBe('re2js');
    expect(refusal(String.raw`(?<name>a+)\k<name>(?<message>)`).problem).toBe('syntax');
  });

  it('answers nested quantifiers that would backtrack for ever, with the right answer', () => {
    expect(compileChatPattern(String.raw`(?<name>(a|aa)+)+b(?<message>)`).match(line)).toBeUndefined();
    expect(compileChatPattern(String.raw`(?<name>.*)*x(?<message>)`).match(line)).toBeUndefined();
    expect(compileChatPattern(String.raw`^(?<name>(a+)+)$(?<message>)`).match(line)?.name).toHaveLength(MAX_CHAT_PATTERN_INPUT_LENGTH);
    expect(compileChatPattern(String.raw`^(?<name>(a|aa)+)+(?<message>b?)$`).match(line)).toEqual({ name: line, message: '', channel: undefined });
  });

  it('never throws on hostile text, and a match is made of the line’s own text', () => {
    const patterns = [ESSENTIALS_GROUP, LUCKPERMS_ARROW, VENTURECHAT, String.raw`(?<name>\S+)\s*[:»>|]\s*(?<message>.*)`, String.raw`(?i)(?<name>.*?)(?<message>.*)`].map(compileChatPattern);
    for (const seed of [1, 2, 3]) {
      const hostile = createHostileTextGenerator(seed);
      for (let index = 0; index < 200; index++) {
        const text = hostile.text();
        for (const pattern of patterns) {
          const found = pattern.match(text);
          if (found === undefined) continue;
          expect(found.name, `seed ${seed}`).not.toBe('');
          expect(text.includes(found.name) && text.includes(found.message), `seed ${seed}`).toBe(true);
        }
      }
    }
  });
});
