// Reads Squad's RCON text: the chat lines the server pushes (packets of type 1) and the `ListPlayers` answer.
// Pure functions: must never throw on what the game sends (an odd line is collected with a reason), never do I/O,
// and never decide policy.
//
// Formats, as SquadJS (the domain anchor, Team-Silver-Sphere/SquadJS `squad-server/rcon.js`) reads them:
//   chat         `[ChatAll] [Online IDs:EOS: <32 hex> steam: <17 digits>] Name : text`, also ChatTeam, ChatSquad,
//                ChatAdmin (SquadJS: /\[(ChatAll|ChatTeam|ChatSquad|ChatAdmin)] \[Online IDs:([^\]]+)\] (.+?) : (.*)/;
//                the ids are `platform: id` pairs, `core/id-parser.js`); a player without Steam has only EOS.
//                Before v7: `[ChatAll] [SteamID:<17 digits>] Name : text` (the first v7 builds printed the EOS id
//                in that tag: SquadJS core/rcon.js rewrote such lines). The server's own lines in a chat channel
//                carry no ids: `[ChatAdmin] ASQKillDeathRuleset : Player X Team Killed Player Y`.
//   ListPlayers  `----- Active Players -----`, then rows
//                `ID: 3 | Online IDs: EOS: <eos> steam: <steam> | Name:  ComboAz | Team ID: 1 | Squad ID: N/A | Is Leader: False | Role: INS_Sapper_01`
//                then `----- Recently Disconnected Players [Max of 15] -----` and rows with `Since Disconnect:`
//                (SquadJS getListPlayers regex; the two-space `Name:  ` appears in real captures). Before Squad v7
//                a row had `SteamID: <steam>` instead of `Online IDs:` and ended after `Squad ID`. Since the
//                build of October 2026 (10.6) a row has `Party ID: <N/A|#n|n>` between `Team ID` and `Squad ID`
//                and ends in `| Vehicle: <N/A|name (seat)>` (test/fixtures/real/SOURCES.md, squad-listplayers-current).
import { checkPlayerId } from '../commandText.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

export type SquadChatChannel = 'ChatAll' | 'ChatTeam' | 'ChatSquad' | 'ChatAdmin';

export interface SquadChat {
  readonly kind: 'chat';
  readonly channel: SquadChatChannel;
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly name: string;
  /** Exactly as received after the ` : ` separator (may be empty). */
  readonly text: string;
}

/**
 * A line the server itself wrote in a chat channel (`[ChatAdmin] ASQKillDeathRuleset : Player X Team Killed
 * Player Y`): its sender is an engine class, not a player, so it carries no ids and is never a player's chat.
 */
export interface SquadServerNotice {
  readonly channel: SquadChatChannel;
  readonly sender: string;
  readonly text: string;
}

/**
 * A pushed packet: a chat line; `other` for the server's other notices (admin camera, warnings, kicks, squad
 * created, and the server's own lines in a chat channel, kept in `notice`: not chat, ignore quietly, they arrive
 * all the time); `unparsed` for a line that starts like chat but cannot be read (with why: worth a log line).
 */
export type SquadPushParse =
  | SquadChat
  | { readonly kind: 'other'; readonly notice?: SquadServerNotice }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** The channel, then the ids: `[Online IDs:…]` since v7, `[SteamID:…]` before (Steam64, or EOS in early v7). */
const CHAT_HEAD = /^\[(ChatAll|ChatTeam|ChatSquad|ChatAdmin)\] \[(?:Online IDs:([^\]]*)|SteamID:([^\]]*))\] /;
/**
 * The server's own line: a chat channel, then a sender that is an Unreal class name (the engine's `A`/`U` prefix
 * and CamelCase, like `ASQKillDeathRuleset`), never a player's name with ids.
 */
const SERVER_NOTICE = /^\[(ChatAll|ChatTeam|ChatSquad|ChatAdmin)\] ([AU][A-Z][A-Za-z0-9_]*) : (.*)$/s;
/** `platform: id` pairs, as SquadJS's id parser reads them (whitespace around the colon allowed). */
const ID_PAIR = /([^\s:]+)\s*:\s*(\S+)/g;
const NAME_SEPARATOR = ' : ';

interface OnlineIds {
  steamId?: string;
  eosId?: string;
}

/** `EOS: <eos> steam: <steam>` → the valid ids; a value of the wrong shape is left out (the caller needs one). */
function parseOnlineIds(text: string): OnlineIds {
  const ids: OnlineIds = {};
  for (const match of text.matchAll(ID_PAIR)) {
    const platform = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (platform === 'eos') {
      const valid = checkPlayerId(value, ['eos']);
      if (valid !== undefined) ids.eosId = valid.id;
    } else if (platform === 'steam') {
      const valid = checkPlayerId(value, ['steam']);
      if (valid !== undefined) ids.steamId = valid.id;
    }
  }
  return ids;
}

/**
 * One pushed packet body → chat, `other`, or `unparsed`.
 *
 * Names may contain ` : `, which makes `Name : text` ambiguous. The rule: if `knownName` returns the name the
 * player list holds for this line's id (EOS first, then Steam) and the rest starts with `<that name> : `, that
 * is the split; otherwise the first ` : ` ends the name (SquadJS's lazy `(.+?) : `; the other choice, the last
 * ` : `, would move any text containing ` : ` into the name). Only the packet framing (trailing NUL, CR, LF) is
 * removed: a trailing space belongs to the separator of an empty message (`Name : `).
 */
export function parseSquadPush(body: string, knownName?: (id: string) => string | undefined): SquadPushParse {
  const line = body.replace(/[\0\r\n]+$/, '');
  const head = CHAT_HEAD.exec(line);
  if (head === null) {
    const notice = SERVER_NOTICE.exec(line);
    if (notice !== null) {
      return { kind: 'other', notice: { channel: notice[1] as SquadChatChannel, sender: notice[2] ?? '', text: notice[3] ?? '' } };
    }
    if (/^\[Chat\w*\]/.test(line)) return { kind: 'unparsed', reason: 'a chat line without the [Online IDs:…] or [SteamID:…] part' };
    return { kind: 'other' };
  }
  const channel = head[1] as SquadChatChannel;
  const ids = head[2] !== undefined ? parseOnlineIds(head[2]) : legacyChatId(head[3] ?? '');
  if (ids.eosId === undefined && ids.steamId === undefined) {
    return { kind: 'unparsed', reason: 'a chat line with no valid EOS or Steam id' };
  }
  const rest = line.slice(head[0].length);
  let name: string | undefined;
  let text: string | undefined;
  for (const id of [ids.eosId, ids.steamId]) {
    const known = id === undefined ? undefined : knownName?.(id);
    if (known !== undefined && known.length > 0 && rest.startsWith(known + NAME_SEPARATOR)) {
      name = known;
      text = rest.slice(known.length + NAME_SEPARATOR.length);
      break;
    }
  }
  if (name === undefined || text === undefined) {
    const separator = rest.indexOf(NAME_SEPARATOR);
    if (separator < 0) return { kind: 'unparsed', reason: 'a chat line without the " : " between name and text' };
    name = rest.slice(0, separator);
    text = rest.slice(separator + NAME_SEPARATOR.length);
  }
  return { kind: 'chat', channel, ...ids, name, text };
}

const ACTIVE_HEADER = /^-+ Active Players -+$/;
const DISCONNECTED_HEADER = /^-+ Recently Disconnected Players.*-+$/;
/**
 * An active row. The name is greedy, so a name containing ` | Team ID: ` is still read up to the last one (the
 * fields after it are the game's own). `Party ID` (current builds) and `Is Leader` and `Role` (older builds lack
 * them) are optional; the current trailing `| Vehicle: …` is read as part of the role, which is not kept.
 */
const PLAYER_ROW =
  /^ID: (\d+) \| (?:Online IDs:([^|]*)|SteamID: (\S+)) \| Name: (.*) \| Team ID: (\d+|N\/A)(?: \| Party ID: (?:N\/A|#?\d+))? \| Squad ID: (\d+|N\/A)(?: \| Is Leader: (?:True|False))?(?: \| Role: .*)?$/s;

/** A Squad player row: the ids and name, plus the slot id (`ID:`) commands like AdminWarn also accept. */
export interface SquadListedPlayer extends ListedPlayer {
  readonly slot: number;
  /** `null` while between teams (N/A, e.g. during a map change). */
  readonly teamId: number | null;
  readonly squadId: number | null;
}

export interface SquadPlayerListParse extends PlayerListParse {
  readonly players: readonly SquadListedPlayer[];
}

/**
 * `ListPlayers` → the active players. Rows after the `Recently Disconnected Players` header are ignored (they
 * have left). The name is trimmed (Squad prints two spaces after `Name:`). A row with neither a valid EOS nor
 * Steam id is unparsed. Status: `players` when rows were read; `none` when the headers came with no rows;
 * `unrecognised` when there were active rows but none could be read (a layout this parser does not know: taken as
 * "nobody online" it would make every player leave on every poll), or no header and no row (an empty or foreign
 * answer). Neither `unrecognised` answer may be diffed.
 */
export function parseSquadPlayerList(answer: string): SquadPlayerListParse {
  const players: SquadListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  let sawHeader = false;
  for (const rawLine of answer.split('\n')) {
    const line = rawLine.replace(/[\r\0]+$/, '').trim();
    if (line.length === 0) continue;
    if (ACTIVE_HEADER.test(line)) {
      sawHeader = true;
      continue;
    }
    if (DISCONNECTED_HEADER.test(line)) {
      sawHeader = true;
      break;
    }
    const row = PLAYER_ROW.exec(line);
    if (row === null) {
      unparsed.push({ line, reason: 'not an "ID: n | Online IDs: … | Name: … | Team ID: …" row' });
      continue;
    }
    const ids = row[2] !== undefined ? parseOnlineIds(row[2]) : legacySteamId(row[3] ?? '');
    if (ids.eosId === undefined && ids.steamId === undefined) {
      unparsed.push({ line, reason: 'a player row with no valid EOS or Steam id' });
      continue;
    }
    players.push({
      ...ids,
      name: (row[4] ?? '').trim(),
      slot: Number(row[1]),
      teamId: numberOrNull(row[5]),
      squadId: numberOrNull(row[6]),
    });
  }
  const status = players.length > 0 ? 'players' : sawHeader && unparsed.length === 0 ? 'none' : 'unrecognised';
  return { status, players, unparsed };
}

/** The id in a pre-v7 chat tag: a Steam64, or the EOS id the first v7 builds printed there. */
function legacyChatId(value: string): OnlineIds {
  const valid = checkPlayerId(value.trim());
  if (valid === undefined) return {};
  return valid.kind === 'steam' ? { steamId: valid.id } : { eosId: valid.id };
}

function legacySteamId(value: string): OnlineIds {
  const valid = checkPlayerId(value, ['steam']);
  return valid === undefined ? {} : { steamId: valid.id };
}

function numberOrNull(value: string | undefined): number | null {
  return value === undefined || value === 'N/A' ? null : Number(value);
}
