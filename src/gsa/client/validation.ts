// Checks a call's input before any request is made, so a bad id or an out-of-range rating costs no API
// budget and gets a message naming the field. It never calls the network and never echoes secrets.

import { InvalidInputError } from '../errors.js';
import { EOS_ID_PATTERN, STEAM_ID_PATTERN } from '../../ids/playerIds.js';
import type { OnePlayerId, PlayerIds } from '../types.js';

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
  const problems: Problems = {};
  checkServerName(problems, server);
  checkPlayer(problems, player);
  throwIfAny(problems);
  return onePlayerIdOf(player);
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
