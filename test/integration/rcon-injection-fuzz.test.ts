// End-to-end injection fuzz: thousands of hostile strings (player names, chat text, the service's alert, ids) go
// through the one sanitiser's command builders (adapters/rcon/commandText.ts) and the REAL clients, pipelined, over
// real loopback sockets into the fake game servers, which record what arrived. The unit fuzz
// (test/unit/rcon-command-text.test.ts) checks the strings the builders return; this checks what a game server
// actually receives after framing, UTF-8 encoding, split TCP writes, pipelining and pushed packets in between:
// exactly one well-formed command per message (test/fixtures/consoleModel.ts, both console dialects), the one that
// was built, in order, and no other; every reply handed to the command it answers; nothing built for an invalid id.
// Fixed seeds: a failure names the message's index and replays exactly.
import { afterEach, describe, expect, it } from 'vitest';
import {
  ARK_TEXT_RULES,
  SQUAD_TEXT_RULES,
  arkGsaMute,
  arkServerChatTo,
  arkServerChatToPlayer,
  checkPlayerId,
  rustMute,
  rustUnmute,
  squadAdminWarn,
} from '../../adapters/rcon/commandText.js';
import { compileNotifyTemplate } from '../../adapters/rcon/commandTemplate.js';
import { InvalidPlayerIdError, UnaddressableNameError } from '../../adapters/rcon/errors.js';
import { RCON_PROFILE_TABLE } from '../../adapters/rcon/profiles/index.js';
import { SourceRconClient, type UnsolicitedPacket } from '../../adapters/rcon/sourceRconClient.js';
import { SourceRconPacketType, type SourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { WebRconClient, type WebRconLogger } from '../../adapters/rcon/webRconClient.js';
import { problemsWithCommand, splitConsoleArguments } from '../fixtures/consoleModel.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { FakeSourceRconServer } from '../fixtures/fakeSourceRconServer.js';
import { createHostileTextGenerator, seededRandom, type HostileTextGenerator } from '../fixtures/hostileText.js';

const SEED = 0x8e2e2e8;
/** Messages per game: enough to hit every hostile piece many times, few enough for ~10 s on a loaded 2-core machine. */
const MESSAGES = 5_000;
const PASSWORD = 'fuzz-password';
/** Squad pushes a chat packet (type 1) before every this-many-th reply: pushed packets must never become a reply. */
const PUSH_EVERY = 37;

/** A message the profile would send: the command built from hostile input, and what makes it well formed. */
interface Built {
  readonly index: number;
  readonly body: string;
  readonly problems: () => string[];
}

interface Plan {
  readonly built: Built[];
  /** Messages the builders refused (an invalid id, a name that cannot be addressed safely): nothing is sent. */
  refused: number;
  /** Anything else: a builder that threw something other than its one refusal, or built for an invalid id. */
  readonly failures: string[];
}

/** Builds each message's command, or records why there is none (which must be the one legitimate refusal). */
function planMessages(count: number, build: (index: number) => Built | 'refused'): Plan {
  const plan: Plan = { built: [], refused: 0, failures: [] };
  for (let index = 0; index < count; index++) {
    try {
      const outcome = build(index);
      if (outcome === 'refused') plan.refused++;
      else plan.built.push(outcome);
    } catch (error) {
      plan.failures.push(`#${index}: unexpected ${String(error)}`);
    }
  }
  return plan;
}

/** An id the builder refused must really be invalid; a valid one must have been built. */
function refusedForInvalidId(error: unknown, id: string, accept: Parameters<typeof checkPlayerId>[1] = ['steam', 'eos']): 'refused' {
  if (error instanceof InvalidPlayerIdError && checkPlayerId(id, accept) === undefined) return 'refused';
  throw error;
}

function arkMessage(generator: HostileTextGenerator, index: number): Built | 'refused' {
  const text = generator.text();
  switch (index % 3) {
    case 0: {
      const id = generator.id();
      let body: string;
      try {
        body = arkServerChatTo(id, text);
      } catch (error) {
        return refusedForInvalidId(error, id);
      }
      const valid = checkPlayerId(id);
      return {
        index,
        body,
        problems: () => [
          ...(valid === undefined ? ['built for an invalid id'] : []),
          ...problemsWithCommand(body, { verb: 'ServerChatTo', id: valid?.id, maxTextLength: ARK_TEXT_RULES.maxLength, asciiOnly: true }),
        ],
      };
    }
    case 1: {
      // Half the names are plain words, so the accepted path is exercised as much as the refusal.
      const raw = generator.text();
      const name = index % 2 === 0 ? raw : `Rex ${raw.replace(/[^A-Za-z0-9 ()]/g, '').slice(0, 20)}`.trim();
      let body: string;
      try {
        body = arkServerChatToPlayer(name, text);
      } catch (error) {
        if (error instanceof UnaddressableNameError) return 'refused';
        throw error;
      }
      return {
        index,
        body,
        problems: () => problemsWithCommand(body, { verb: 'ServerChatToPlayer', id: name, maxTextLength: ARK_TEXT_RULES.maxLength, asciiOnly: true }),
      };
    }
    default: {
      const id = generator.id();
      const muted = index % 2 === 0;
      let body: string;
      try {
        body = arkGsaMute(id, muted, text);
      } catch (error) {
        return refusedForInvalidId(error, id);
      }
      const valid = checkPlayerId(id);
      return {
        index,
        body,
        problems: () => {
          const args = splitConsoleArguments(body);
          const problems = problemsWithCommand(body, { verb: 'scriptcommand' });
          if (args[1] !== 'gsamute' || args[2] !== valid?.id || args[3] !== String(muted) || (muted ? args.length < 5 : args.length !== 4)) problems.push('arguments out of place');
          return problems;
        },
      };
    }
  }
}

function squadMessage(generator: HostileTextGenerator, index: number): Built | 'refused' {
  const id = generator.id();
  const text = generator.text();
  let body: string;
  try {
    body = squadAdminWarn(id, text);
  } catch (error) {
    return refusedForInvalidId(error, id);
  }
  const valid = checkPlayerId(id);
  return {
    index,
    body,
    problems: () => [
      ...(valid === undefined ? ['built for an invalid id'] : []),
      ...problemsWithCommand(body, { verb: 'AdminWarn', id: valid?.id, maxTextLength: SQUAD_TEXT_RULES.maxLength }),
    ],
  };
}

// A private-message plugin's command with the player's (hostile) name and the (hostile) alert, as a host writes it.
const notify = compileNotifyTemplate('pm {steamId} "{name}: {message}"');

function rustMessage(generator: HostileTextGenerator, index: number): Built | 'refused' {
  // Every other id is a valid Steam64 (Rust takes no other), so hostile names and text reach the wire often.
  const hostileId = generator.id();
  const id = index % 2 === 0 ? hostileId : `76561198${String(index).padStart(9, '0')}`;
  const name = generator.text();
  const message = generator.text();
  const verb = (['mute', 'unmute', 'pm'] as const)[index % 3] ?? 'pm';
  let body: string;
  try {
    body = verb === 'mute' ? rustMute(id) : verb === 'unmute' ? rustUnmute(id) : notify({ steamId: id, name, message });
  } catch (error) {
    return refusedForInvalidId(error, id, ['steam']);
  }
  const valid = checkPlayerId(id, ['steam']);
  return {
    index,
    body,
    problems: () => {
      const problems = problemsWithCommand(body, { verb, id: verb === 'pm' ? valid?.id : undefined });
      if (valid === undefined) problems.push('built for an invalid id');
      if (verb !== 'pm' && body !== `${verb} ${valid?.id ?? ''}`) problems.push('not exactly "<verb> <steamid>"');
      return problems;
    },
  };
}

/**
 * What the server recorded against what was built: the same commands in the same order and nothing else, each
 * well formed; and each reply (the server numbers the commands it received) back at the command it answers.
 */
function compare(plan: Plan, recorded: readonly string[], replies: readonly string[]): string[] {
  const failures = [...plan.failures];
  if (recorded.length !== plan.built.length) failures.push(`the server recorded ${recorded.length} commands for ${plan.built.length} messages`);
  plan.built.forEach((message, position) => {
    const got = recorded[position];
    if (got !== message.body) failures.push(`#${message.index}: sent ${JSON.stringify(message.body.slice(0, 80))}, the server recorded ${JSON.stringify(got?.slice(0, 80))}`);
    const problems = message.problems();
    if (problems.length > 0) failures.push(`#${message.index}: ${problems.join('; ')} in ${JSON.stringify(message.body.slice(0, 120))}`);
    if (replies[position] !== `#${position}`) failures.push(`#${message.index}: got the reply ${JSON.stringify(replies[position])}, expected #${position}`);
  });
  return failures;
}

let sourceServer: FakeSourceRconServer | undefined;
let rustServer: FakeRustWebRconServer | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await sourceServer?.stop();
  await rustServer?.stop();
  sourceServer = undefined;
  rustServer = undefined;
});

describe(`end-to-end injection fuzz: ${MESSAGES} hostile messages per game, seed ${SEED.toString(16)}`, () => {
  for (const [game, seedOffset, message] of [
    ['ark', 0, arkMessage],
    ['squad', 1, squadMessage],
  ] as const) {
    it(`${game}: every message reaches the fake ${game} server as exactly one well-formed command, in order, with split writes`, async () => {
      const generator = createHostileTextGenerator(SEED + seedOffset);
      const plan = planMessages(MESSAGES, (index) => message(generator, index));
      let pushed = 0;
      const server = await FakeSourceRconServer.start({
        quirks: game,
        password: PASSWORD,
        writeMode: 'split',
        random: seededRandom(SEED + 10 + seedOffset),
        respond: () => {
          const number = (sourceServer?.commands.length ?? 0) - 1;
          // Squad's pushed chat, written just before the reply it must not be taken for.
          if (game === 'squad' && number % PUSH_EVERY === 0) {
            sourceServer?.pushChat(`[ChatAll] [Online IDs:EOS: 0002aaaa000000000000000000000001 steam: 76561198000000001] x : "|quit ${number}`);
            pushed++;
          }
          return `#${number}`;
        },
      });
      sourceServer = server;
      const transport = RCON_PROFILE_TABLE[game].transport;
      if (transport.kind !== 'source') throw new Error(`${game} is not a Source RCON profile`);
      const unsolicited: UnsolicitedPacket[] = [];
      const client = new SourceRconClient({
        host: server.host,
        port: server.port,
        password: PASSWORD,
        label: `${game}-fuzz`,
        // The profile's own reply-end rule (ark: quiet time, squad: the mirror trick), pipelined deeper than the
        // profile (ark sends one at a time) and without its rate cap: this test is about what arrives, not pace.
        replyEnd: transport.replyEnd,
        maxInFlight: 8,
        maxQueuedCommands: MESSAGES,
        commandTimeoutMs: 120_000,
        reconnect: false,
        onUnsolicited: (packet) => unsolicited.push(packet),
      });
      closers.push(() => client.close());
      client.start();
      await client.whenReady({ failFast: true });

      const replies = await Promise.all(plan.built.map((built) => client.command(built.body)));

      const failures = compare(plan, server.commands, replies);
      // One login, one session, nothing but the built commands (and, for squad, their mirror packets).
      expect({ logins: server.logins, sessions: server.maxConcurrentSessions }).toEqual({ logins: 1, sessions: 1 });
      const isMirror = (packet: SourceRconPacket): boolean => game === 'squad' && packet.type === SourceRconPacketType.RESPONSE_VALUE && packet.body.length === 0;
      const otherPackets = server.packets.filter(
        (packet) => packet.type !== SourceRconPacketType.EXECCOMMAND && packet.type !== SourceRconPacketType.AUTH && !isMirror(packet),
      );
      expect(otherPackets).toEqual([]);
      expect(unsolicited.map((packet) => packet.reason)).toEqual(Array.from({ length: pushed }, () => 'pushed'));
      expect(failures.slice(0, 10)).toEqual([]);
      // Both paths were exercised in earnest.
      expect(plan.built.length).toBeGreaterThan(MESSAGES * 0.4);
      expect(plan.refused).toBeGreaterThan(MESSAGES * 0.1);
    });
  }

  it('rust: every mute, unmute and notifyCommand reaches the fake WebRCON server as exactly one well-formed command, in order', async () => {
    const generator = createHostileTextGenerator(SEED + 2);
    const plan = planMessages(MESSAGES, (index) => rustMessage(generator, index));
    const server = await FakeRustWebRconServer.start({
      password: PASSWORD,
      respond: () => `#${(rustServer?.commands.length ?? 0) - 1}`,
    });
    rustServer = server;
    const warnings: string[] = [];
    const quiet = (): void => undefined;
    const logger: WebRconLogger = {
      debug: quiet,
      info: quiet,
      warn: (_bindings, text) => warnings.push(text),
      error: (_bindings, text) => warnings.push(text),
    };
    const client = new WebRconClient({ host: '127.0.0.1', port: server.port, password: PASSWORD, label: 'rust-fuzz', logger, keepaliveMs: 0, commandTimeoutMs: 120_000 });
    closers.push(() => client.close());
    client.start();
    await client.ready(10_000);

    const replies = await Promise.all(plan.built.map((built) => client.command(built.body)));

    const failures = compare(
      plan,
      server.commands.map((command) => command.message),
      replies,
    );
    expect(server.sessionsOpened).toBe(1);
    expect(warnings).toEqual([]);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(plan.built.length).toBeGreaterThan(MESSAGES * 0.5);
    expect(plan.refused).toBeGreaterThan(MESSAGES * 0.1);
  });
});
