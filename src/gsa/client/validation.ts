// Checks a call's input before any request is made, so a bad id or an out-of-range rating costs no API
// budget and gets a message naming the field. It never calls the network and never echoes secrets.

import { InvalidInputError } from '../errors.js';
import { EOS_ID_PATTERN, STEAM_ID_PATTERN } from '../../ids/playerIds.js';
import type { OnePlayerId, PlayerIds, ReportFields, ShopSearch } from '../types.js';

// Re-exported: the package has exported both patterns from here since before the id module existed.
export { EOS_ID_PATTERN, STEAM_ID_PATTERN };
const URL_SAFE_NAME = /^[A-Za-z0-9._~-]+$/;

export interface ReviewLimits {
  /** Lowest star rating accepted. Default 1. */
  readonly minStars: number;
  /** Highest star rating accepted. Default 5. */
  readonly maxStars: number;
  /** Longest comment accepted, in characters. Default 500. */
  readonly maxCommentLength: number;
}

export const DEFAULT_REVIEW_LIMITS: ReviewLimits = { minStars: 1, maxStars: 5, maxCommentLength: 500 };

type Problems = Record<string, string[]>;

/** Tabs and line breaks (a run of them becomes one space); then every other C0/C1 control and DEL disappears. */
const LINE_BREAKS_AND_TABS = /[\t\n\r\v\f\u0085\u2028\u2029]+/g;
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/**
 * The one rule for control characters in a review comment, on every path into the outbox and to the service
 * (mod, chat command, CLI, library): a game's chat box cannot show them and a dashboard would render them raw.
 * Idempotent, so a comment cleaned at admission is sent byte-exact when the client cleans it again.
 */
export function cleanComment(comment: string): string {
  return comment.replace(LINE_BREAKS_AND_TABS, ' ').replace(CONTROL_CHARACTERS, '');
}

/** Characters as a person counts them (code points), not UTF-16 units: an emoji is one, as on the service. */
export function characterCount(text: string): number {
  let count = 0;
  // Every UTF-16 unit but the high half of a surrogate pair starts a character of its own.
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdbff) count++;
  }
  return count;
}

function add(problems: Problems, field: string, problem: string): void {
  (problems[field] ??= []).push(problem);
}

function throwIfAny(problems: Problems): void {
  if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
}

function checkServerName(problems: Problems, server: string): void {
  if (server.length === 0) add(problems, 'server', 'must not be empty (the GSA container name, like "ovddykvbs")');
  else if (!URL_SAFE_NAME.test(server)) add(problems, 'server', 'may contain only letters, digits and . _ ~ -');
}

function checkPlayer(problems: Problems, player: PlayerIds): void {
  const { steamId, eosId } = player;
  if (steamId === undefined && eosId === undefined) {
    add(problems, 'player', 'needs a steam_id or an eos_id');
    return;
  }
  // GSA refuses both (a Laravel `prohibits` rule): which one to ask by is the caller's choice, never guessed here.
  if (steamId !== undefined && eosId !== undefined) {
    add(problems, 'player', 'give one id, steam_id or eos_id, not both: GSA takes one, and which one is the caller\'s choice (the sidecar\'s is servers[].lookupIds)');
    return;
  }
  if (steamId !== undefined && !STEAM_ID_PATTERN.test(steamId)) add(problems, 'steam_id', 'must be 17 digits');
  if (eosId !== undefined && !EOS_ID_PATTERN.test(eosId)) add(problems, 'eos_id', 'must be 32 hexadecimal characters');
}

/** The player as the one id they were checked to carry (after checkPlayer found no problem). */
function onePlayerIdOf(player: PlayerIds): OnePlayerId {
  return player.steamId !== undefined ? { steamId: player.steamId } : { eosId: player.eosId ?? '' };
}

/** Checks a mute check's input; returns the player as the one id to send. */
export function validateMuteCheck(server: string, player: PlayerIds): OnePlayerId {
  return validatePlayerCall(server, player);
}

/** Checks a server and one player, as every Mod API v2 call about a player takes them; returns the id to send. */
export function validatePlayerCall(server: string, player: PlayerIds, more?: (problems: Record<string, string[]>) => void): OnePlayerId {
  const problems: Problems = {};
  checkServerName(problems, server);
  checkPlayer(problems, player);
  more?.(problems);
  throwIfAny(problems);
  return onePlayerIdOf(player);
}

/** Checks a server name alone (the dashboard's settings and button modal name no player). */
export function validateServer(server: string): void {
  const problems: Problems = {};
  checkServerName(problems, server);
  throwIfAny(problems);
}

/** Longest report comment sent, in characters after cleaning (GSA documents none; a report is a paragraph). */
export const REPORT_COMMENT_MAX_LENGTH = 1000;

/** GSA's coordinates as the ASA mod sends them: `X_123 Y_-4.5 Z_789`. */
export const REPORT_COORDS_PATTERN = /^X_-?\d+(\.\d+)? Y_-?\d+(\.\d+)? Z_-?\d+(\.\d+)?$/;

/** Longest shop search or filter sent: a player types a word or two, never a page. */
export const SHOP_QUERY_MAX_LENGTH = 200;

/** A report type as GSA lists them: a whole number, or a short printable text. */
const TYPE_TEXT = /^[^\p{Cc}]{1,100}$/u;

/**
 * Checks a report's input; returns the player as the one id to send and the fields as sent, the comment cleaned by
 * `cleanComment` (idempotent, so a report cleaned at admission is sent byte-exact).
 */
export function validateReport(server: string, player: PlayerIds, report: ReportFields): { readonly asked: OnePlayerId; readonly report: ReportFields } {
  const comment = cleanComment(report.comment);
  const asked = validatePlayerCall(server, player, (problems) => {
    const length = characterCount(comment.trim());
    if (length < 1 || characterCount(comment) > REPORT_COMMENT_MAX_LENGTH) {
      add(problems, 'comment', `must be 1 to ${REPORT_COMMENT_MAX_LENGTH} characters (after control characters are removed)`);
    }
    if (!Number.isSafeInteger(report.characterId)) add(problems, 'character_id', "must be a whole number (the reporter's in-game character id)");
    if (!REPORT_COORDS_PATTERN.test(report.coords)) add(problems, 'coords', 'must read X_<n> Y_<n> Z_<n>, like "X_123 Y_-45.5 Z_789"');
    const { type } = report;
    if (typeof type === 'number' ? !Number.isSafeInteger(type) || type < 0 : !TYPE_TEXT.test(type)) {
      add(problems, 'type', 'must be one of the report settings\' type ids (a whole number, or a short text)');
    }
    const reported = report.reportedPlayer;
    if (reported !== undefined && (!Number.isSafeInteger(reported) || reported < 1)) {
      add(problems, 'reported_player', "must be a user_id from the report settings' players (a whole number of 1 or more)");
    }
  });
  return { asked, report: { ...report, comment } };
}

/** Checks a shop index query: the player, and a search and filter of at most SHOP_QUERY_MAX_LENGTH characters. */
export function validateShopSearch(server: string, player: PlayerIds, search: ShopSearch): OnePlayerId {
  return validatePlayerCall(server, player, (problems) => {
    for (const [field, value] of [
      ['search', search.search],
      ['filter', search.filter],
    ] as const) {
      if (value !== undefined && (typeof value !== 'string' || characterCount(value) > SHOP_QUERY_MAX_LENGTH)) {
        add(problems, field, `must be a text of at most ${SHOP_QUERY_MAX_LENGTH} characters`);
      }
    }
  });
}

/** Checks a call about one shop pack (its detail, an order). */
export function validatePackCall(server: string, player: PlayerIds, packId: number): OnePlayerId {
  return validatePlayerCall(server, player, (problems) => {
    if (!Number.isSafeInteger(packId) || packId < 1) add(problems, 'pack', 'must be a positive whole number (the id of a pack in the shop index)');
  });
}

/** Checks a token spend: a whole number of tokens, 1 or more. */
export function validateTokenSpend(server: string, player: PlayerIds, amount: number): OnePlayerId {
  return validatePlayerCall(server, player, (problems) => {
    if (!Number.isSafeInteger(amount) || amount < 1) add(problems, 'token_amount', 'must be a whole number of tokens, 1 or more');
  });
}

/** Checks a review's input; returns the player as the one id to send. */
export function validateReview(
  server: string,
  player: PlayerIds,
  stars: number,
  comment: string,
  limits: ReviewLimits,
): OnePlayerId {
  const problems: Problems = {};
  checkServerName(problems, server);
  checkPlayer(problems, player);
  if (!Number.isInteger(stars) || stars < limits.minStars || stars > limits.maxStars) {
    add(problems, 'stars', `must be a whole number from ${limits.minStars} to ${limits.maxStars}`);
  }
  if (characterCount(comment) > limits.maxCommentLength) {
    add(problems, 'comment', `must be at most ${limits.maxCommentLength} characters`);
  }
  throwIfAny(problems);
  return onePlayerIdOf(player);
}

export function validateServerAction(serverId: number, countdownMinutes: number | undefined): void {
  const problems: Problems = {};
  if (!Number.isSafeInteger(serverId) || serverId <= 0) add(problems, 'id', 'must be a positive whole number (the GAMESERVER_ID)');
  if (countdownMinutes !== undefined && (!Number.isSafeInteger(countdownMinutes) || countdownMinutes < 0)) {
    add(problems, 'countdown', 'must be a whole number of minutes, 0 or more');
  }
  throwIfAny(problems);
}

/** The one id a call sends, with its kind, as every line about the call names it: `steam_id 76561198000000001`. */
export function describePlayerId(player: OnePlayerId): string {
  return player.steamId !== undefined ? `steam_id ${player.steamId}` : `eos_id ${player.eosId}`;
}
