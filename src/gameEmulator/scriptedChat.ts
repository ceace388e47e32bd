// The short chat session every fake game console plays, so a host can try `config check --connect` and `run` with no
// game server: two players join, one says something ordinary, one whom the GSA emulator reports muted (when muted
// there, as `gsa-bridge demo` does) says spam, and the first leaves a `!review`. Repeats every `everyMs`.
// It only calls the console's stage (join, leave, say); it must never know a game's wire format or write a file.

/** A player as every fake console needs one: the ids each game shows, so one cast serves every game. */
export interface ScriptedPlayer {
  /** The platform name (Steam name, Squad name, Minecraft name). */
  readonly name: string;
  /** The in-game character (ARK, Conan). */
  readonly character: string;
  readonly steamId: string;
  /** 32 hex digits (ASA, Squad). */
  readonly eosId: string;
  /** A Mojang id (Minecraft). */
  readonly uuid: string;
}

/** Alice: an ordinary player (the demo's Alice). */
export const ALICE: ScriptedPlayer = {
  name: 'Alice',
  character: 'Alice the Bold',
  steamId: '76561198000000001',
  eosId: '0002a11ce0000000000000000000a11c',
  uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5',
};

/**
 * Mallory: the player `gsa-bridge demo` mutes in its GSA emulator (src/cli/demoCommand.ts: steam id
 * 76561198000000002). With a separate `gsa-bridge emulator`, mute her there (POST /_emulator/mute).
 */
export const MALLORY: ScriptedPlayer = {
  name: 'Mallory',
  character: 'Mal',
  steamId: '76561198000000002',
  eosId: '0002ba11ad0000000000000000000bad',
  uuid: '853c80ef-3c37-49fd-aa49-938b674adae6',
};

export const SCRIPTED_PLAYERS: readonly ScriptedPlayer[] = [ALICE, MALLORY];

/** What a fake console offers the script. */
export interface ChatStage {
  join(player: ScriptedPlayer): void;
  leave(player: ScriptedPlayer): void;
  say(player: ScriptedPlayer, text: string): void;
}

export type ScriptStep =
  | { readonly kind: 'join'; readonly player: ScriptedPlayer }
  | { readonly kind: 'say'; readonly player: ScriptedPlayer; readonly text: string };

/** The joins, played once; then the lines, played every round. */
export const SCRIPT_JOINS: readonly ScriptStep[] = [
  { kind: 'join', player: ALICE },
  { kind: 'join', player: MALLORY },
];
export const SCRIPT_LINES: readonly ScriptStep[] = [
  { kind: 'say', player: ALICE, text: 'hi all!' },
  { kind: 'say', player: MALLORY, text: 'BUY GOLD CHEAP' },
  { kind: 'say', player: ALICE, text: '!review 5 Great admins' },
];

export interface ScriptedChatOptions {
  /** A round of lines starts this long after the previous one started. @default 30000 */
  readonly everyMs?: number;
  /** Pause between two steps of a round (a sidecar must see the joins before the lines). @default 1000 */
  readonly stepMs?: number;
  /** Called after each step, for the console's banner ("Alice: hi all!"). */
  readonly onStep?: (step: ScriptStep) => void;
}

export interface ScriptedChat {
  stop(): void;
}

/** Plays the joins, then the lines every `everyMs`, until stop(). The first step runs after one `stepMs`. */
export function startScriptedChat(stage: ChatStage, options: ScriptedChatOptions = {}): ScriptedChat {
  const everyMs = options.everyMs ?? 30_000;
  const stepMs = options.stepMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const play = (step: ScriptStep): void => {
    if (step.kind === 'join') stage.join(step.player);
    else stage.say(step.player, step.text);
    options.onStep?.(step);
  };
  const runSteps = (steps: readonly ScriptStep[], then: () => void): void => {
    const [first, ...rest] = steps;
    if (first === undefined) {
      then();
      return;
    }
    timer = setTimeout(() => {
      if (stopped) return;
      play(first);
      runSteps(rest, then);
    }, stepMs);
  };
  const round = (): void => {
    const startedAt = Date.now();
    runSteps(SCRIPT_LINES, () => {
      timer = setTimeout(round, Math.max(0, everyMs - (Date.now() - startedAt)));
    });
  };
  runSteps(SCRIPT_JOINS, round);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
