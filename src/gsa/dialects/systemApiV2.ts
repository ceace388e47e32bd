// GSA's System API v2 as a dialect (reference/gsa-system-api-v2.md): Bearer auth with the System API key, a GSA-ID
// header when the host has one, Accept: application/json, JSON bodies for players/find, mute and unmute,
// form-urlencoded bodies for the game-server actions and broadcast; the `{"data": …}` / `{"error": …}` answers; and
// the failures it documents, each read into its error class (a 429 "You cannot do this yet" is a per-target
// cooldown, never the key's limit). Pure: builds requests and reads answers, never sends. A built request carries
// the key: never log it, and never put it in an error.

import { z } from 'zod';
import type { SecretKey } from '../client/credentials.js';
import { BadResponseError, CooldownError, ForbiddenError, type GsaError, NotFoundError, RefusedError, UnauthorizedError } from '../errors.js';
import { errorFromResponse, serviceMessageOf } from '../client/responses.js';
import type { RawResponse } from '../client/rawResponse.js';
import type { MuteDuration } from '../system/periods.js';
import type { BroadcastType, LinkedGameIds, SystemActionOptions, SystemPlayerRef, SystemPlayerState, SystemReceipt, SystemServerAction } from '../system/types.js';
import { checkPlayerId } from '../../ids/playerIds.js';
import type { ApiRequest, ClassifyFailure, Scrub } from './dialect.js';

export interface SystemApiContext {
  readonly key: SecretKey;
  /** Path prefix of the base URL, without a trailing slash. */
  readonly basePath: string;
  /** GSA's id for a publicly distributed tool; '' or undefined sends no GSA-ID header. */
  readonly gsaId?: string | undefined;
}

/** GSA's documented cooldowns, per target (reference §0): what a 429 that names no wait is taken to mean. */
export const GSA_PLAYER_COOLDOWN_MS = 120_000;
export const GSA_SERVER_COOLDOWN_MS = 60_000;

const PREFIX = '/system-api/v2';
const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';

/** The System API's path for an action (`stop` is its `shutdown`, `cancel-scheduled` its `cancel`). */
export const SYSTEM_ACTION_PATHS: Readonly<Record<SystemServerAction, string>> = {
  start: 'start',
  stop: 'shutdown',
  restart: 'restart',
  update: 'update',
  'cancel-scheduled': 'cancel',
  backup: 'backup',
};

/** Actions that take `countdown` and `message`. */
const COUNTDOWN_ACTIONS: ReadonlySet<SystemServerAction> = new Set(['stop', 'restart', 'update']);

function headers(context: SystemApiContext, contentType: string | undefined): Record<string, string> {
  const result: Record<string, string> = { accept: JSON_TYPE };
  context.key.useSecret((key) => {
    result.authorization = `Bearer ${key}`;
  });
  if (context.gsaId !== undefined && context.gsaId !== '') result['gsa-id'] = context.gsaId;
  if (contentType !== undefined) result['content-type'] = contentType;
  return result;
}

function jsonPost(context: SystemApiContext, endpoint: ApiRequest['endpoint'], path: string, body: Record<string, string>): ApiRequest {
  return { endpoint, method: 'POST', path: `${context.basePath}${PREFIX}${path}`, headers: headers(context, JSON_TYPE), body: JSON.stringify(body) };
}

function formPost(context: SystemApiContext, path: string, fields: Record<string, string>): ApiRequest {
  return {
    endpoint: 'system-write',
    method: 'POST',
    path: `${context.basePath}${PREFIX}${path}`,
    headers: headers(context, FORM),
    body: new URLSearchParams(fields).toString(),
  };
}

function playerPath(uuid: string): string {
  return `/player/${encodeURIComponent(uuid)}`;
}

function serverPath(gameServerId: number): string {
  return `/gameserver/${String(gameServerId)}`;
}

// ── Requests ──────────────────────────────────────────────────────────────────────────────────────────────────────

function findPlayerRequest(context: SystemApiContext, serviceId: string): ApiRequest {
  return jsonPost(context, 'system-read', '/players/find', { service_id: serviceId });
}

function playerRequest(context: SystemApiContext, uuid: string): ApiRequest {
  return { endpoint: 'system-read', method: 'GET', path: `${context.basePath}${PREFIX}${playerPath(uuid)}`, headers: headers(context, undefined), body: undefined };
}

/** GET game/available: GSA's list of games, read-only and bare (§2.17); the cheapest proof that the key works. */
function availableGamesRequest(context: SystemApiContext): ApiRequest {
  return { endpoint: 'system-read', method: 'GET', path: `${context.basePath}${PREFIX}/game/available`, headers: headers(context, undefined), body: undefined };
}

function muteRequest(context: SystemApiContext, uuid: string, duration: MuteDuration, note?: string): ApiRequest {
  const body: Record<string, string> = { type: duration.type };
  if (duration.type === 'period') body.period = duration.period;
  if (duration.type === 'date') body.date = duration.date;
  if (note !== undefined) body.note = note;
  return jsonPost(context, 'system-write', `${playerPath(uuid)}/mute`, body);
}

function unmuteRequest(context: SystemApiContext, uuid: string, note?: string): ApiRequest {
  return jsonPost(context, 'system-write', `${playerPath(uuid)}/unmute`, note === undefined ? {} : { note });
}

function serverActionRequest(context: SystemApiContext, gameServerId: number, action: SystemServerAction, details: SystemActionOptions = {}): ApiRequest {
  const fields: Record<string, string> = {};
  if (COUNTDOWN_ACTIONS.has(action)) {
    if (details.countdown !== undefined) fields.countdown = String(details.countdown);
    if (details.message !== undefined) fields.message = details.message;
  }
  if (action === 'backup' && details.name !== undefined) fields.name = details.name;
  return formPost(context, `${serverPath(gameServerId)}/${SYSTEM_ACTION_PATHS[action]}`, fields);
}

function broadcastRequest(context: SystemApiContext, gameServerId: number, message: string, type?: BroadcastType): ApiRequest {
  return formPost(context, `${serverPath(gameServerId)}/broadcast`, type === undefined ? { message } : { message, type });
}

// ── Answers ───────────────────────────────────────────────────────────────────────────────────────────────────────

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const serviceUser = z.object({ service_id: z.union([z.string(), z.number()]).nullish(), username: z.string().nullish(), type: z.string().nullish() }).loose();
const player = z
  .object({
    uuid: z.string().min(1).max(100),
    service_users: z.array(serviceUser).nullish(),
    moderation: z.object({ muted: z.object({ is_muted: z.boolean(), until: z.string().nullish() }).loose().nullish() }).loose().nullish(),
  })
  .loose();
const playerList = z.object({ data: z.array(player) }).loose();
const onePlayer = z.object({ data: player }).loose();

function unreadable(what: string, response: RawResponse, issues: z.core.$ZodIssue[]): BadResponseError {
  const field = issues[0]?.path.join('.') ?? '';
  const problem = field.length > 0 ? `field "${field}" is missing or has the wrong type` : 'the body is not the documented JSON object';
  return new BadResponseError(`unreadable ${what} answer from GSA's System API: ${problem}`, { status: response.status });
}

function nameOf(found: z.infer<typeof player>, serviceId?: string): string | undefined {
  const users = found.service_users ?? [];
  const match = users.find((user) => serviceId !== undefined && String(user.service_id) === serviceId) ?? users[0];
  const name = match?.username ?? undefined;
  return name === undefined || name === '' ? undefined : name.slice(0, 100);
}

/** The linked accounts' game ids, each checked against its kind's pattern (anything else is left out). */
function gameIdsOf(found: z.infer<typeof player>): LinkedGameIds | undefined {
  const ids: { steamId?: string; eosId?: string; mojangId?: string } = {};
  for (const user of found.service_users ?? []) {
    // GSA's account types that are game ids a chat line can carry; the id patterns use the same names.
    const kind = user.type === 'steam' || user.type === 'eos' || user.type === 'mojang' ? user.type : undefined;
    if (kind === undefined || user.service_id === undefined || user.service_id === null) continue;
    const id = checkPlayerId(String(user.service_id), [kind]);
    if (id === undefined) continue;
    const field = kind === 'steam' ? 'steamId' : kind === 'eos' ? 'eosId' : 'mojangId';
    ids[field] ??= id.id;
  }
  return Object.keys(ids).length === 0 ? undefined : ids;
}

/** players/find: the player one of whose linked accounts has this id (the first one when none says so). */
function parseFoundPlayer(response: RawResponse, serviceId: string): SystemPlayerRef {
  const parsed = playerList.safeParse(parseJson(response.text));
  if (!parsed.success) throw unreadable('players/find', response, parsed.error.issues);
  const players = parsed.data.data;
  const found = players.find((candidate) => (candidate.service_users ?? []).some((user) => String(user.service_id) === serviceId)) ?? players[0];
  if (found === undefined) throw new NotFoundError('GSA does not know this player (an empty players/find answer)', { status: response.status });
  return { uuid: found.uuid, name: nameOf(found, serviceId), gameIds: gameIdsOf(found) };
}

/** game/available: a bare array of games; how many there are is all a key check needs. */
function parseAvailableGames(response: RawResponse): number {
  const parsed = z.array(z.unknown()).safeParse(parseJson(response.text));
  if (!parsed.success) throw unreadable('game/available', response, parsed.error.issues);
  return parsed.data.length;
}

function parsePlayer(response: RawResponse): SystemPlayerState {
  const parsed = onePlayer.safeParse(parseJson(response.text));
  if (!parsed.success) throw unreadable('player', response, parsed.error.issues);
  const found = parsed.data.data;
  const muted = found.moderation?.muted;
  if (muted === undefined || muted === null) {
    throw new BadResponseError('unreadable player answer from GSA\'s System API: field "data.moderation.muted" is missing', { status: response.status });
  }
  return { uuid: found.uuid, name: nameOf(found), gameIds: gameIdsOf(found), muted: muted.is_muted, mutedUntil: muted.is_muted ? (muted.until ?? null) : null };
}

/** An action's `{"data": "Player will be muted shortly."}`; anything else sent is maybe processed. */
function parseReceipt(response: RawResponse, scrub: Scrub): SystemReceipt {
  const body = parseJson(response.text);
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const { data } = body as Record<string, unknown>;
    if (typeof data === 'string') return { status: response.status, message: scrub(data).replace(/\s+/g, ' ').trim() };
  }
  throw new BadResponseError(`GSA's System API answered ${response.status} without its documented {"data": "…"}; the action may or may not have been taken: check the dashboard`, {
    status: response.status,
    maybeProcessed: true,
  });
}

// ── Failures ──────────────────────────────────────────────────────────────────────────────────────────────────────

/** What a call acts on, so its failures can name it. */
export type SystemSubject =
  | { readonly kind: 'player'; readonly uuid?: string | undefined; readonly period?: string | undefined }
  | { readonly kind: 'server'; readonly gameServerId: number };

/**
 * The service's words on one line, without the PHP docblock artifact GSA's YAML carries in its per-player 429
 * strings ("Please wait 120\n     *     second(s)").
 */
export function normalisedServiceText(text: string): string {
  // After a newline, or once whitespace was already folded (serviceMessageOf does): a lone `*` between words.
  return text.replace(/\s*\n\s*\*\s*/g, ' ').replace(/\s+\*\s+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** `ms` as an ISO date to the second: "2026-11-27T23:12:04Z". */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** "GSA allows one mute or unmute per player every 120 s: this player can be muted again at …". */
export function cooldownMessage(subject: SystemSubject, cooldownMs: number, availableAt: number): string {
  const seconds = Math.round(cooldownMs / 1000);
  const at = isoSecond(availableAt);
  return subject.kind === 'player'
    ? `GSA allows one mute or unmute per player every ${seconds} s: this player can be muted or unmuted again at ${at}`
    : `GSA allows one action or broadcast per game server every ${seconds} s: game server ${subject.gameServerId} can be called again at ${at}`;
}

const COOLDOWN_THIS = /^You cannot do this yet\.?(?:.*?wait (\d{1,6}) second)?/i;
const COOLDOWN_THAT = /^You cannot do that yet\.?/i;

/** The wait a 429's text names (ms), the documented one when it names none; undefined when it is not a cooldown's text. */
function cooldownWaitMs(message: string, subject: SystemSubject): number | undefined {
  const documented = subject.kind === 'player' ? GSA_PLAYER_COOLDOWN_MS : GSA_SERVER_COOLDOWN_MS;
  const match = COOLDOWN_THIS.exec(message);
  if (match !== null) return match[1] === undefined ? documented : Number(match[1]) * 1000;
  return COOLDOWN_THAT.test(message) ? documented : undefined;
}

function describe(what: string, serviceMessage: string): string {
  return serviceMessage.length > 0 ? `${what}: ${serviceMessage}` : what;
}

/**
 * GSA's own word that it has no such player (players/find's "No players found matching the criteria", the player
 * paths' "Player not found"): a player who never joined a server of the dashboard, whom nobody can have muted there.
 * A 404 without those words (a wrong base URL, a proxy) is not this.
 */
export function isUnknownPlayerAnswer(error: unknown): boolean {
  return error instanceof NotFoundError && /^(No players found matching the criteria|Player not found)/i.test(error.serviceMessage ?? '');
}

/** How the System API's failures read for a call on `subject` (reference: every documented 400, 401, 403, 404, 429). */
export function classifySystemFailure(subject: SystemSubject): ClassifyFailure {
  return (response, scrub, nowMs): GsaError => {
    const { status } = response;
    const serviceMessage = normalisedServiceText(serviceMessageOf(response.text, scrub));
    const details = { status, serviceMessage };
    switch (status) {
      case 401:
        return new UnauthorizedError(describe("GSA refused the System API key (401): check api.system.key or GSA_SYSTEM_API_KEY", serviceMessage), details);
      case 403:
        return new ForbiddenError(describe('GSA refused the System API call (403): the key may lack the scope, or the dashboard the add-on', serviceMessage), details);
      case 404:
        if (/^Game server not found/i.test(serviceMessage) || (subject.kind === 'server' && !/player/i.test(serviceMessage))) {
          const id = subject.kind === 'server' ? ` ${subject.gameServerId}` : '';
          return new NotFoundError(describe(`GSA does not know game server${id} (404): check --id or the server's "id"`, serviceMessage), details);
        }
        return new NotFoundError(describe('GSA does not know this player (404)', serviceMessage), details);
      case 400:
        if (/needs to be online/i.test(serviceMessage)) {
          const id = subject.kind === 'server' ? ` ${subject.gameServerId}` : '';
          return new RefusedError(describe(`game server${id} is offline (400)`, serviceMessage), details);
        }
        if (/^Invalid period or date/i.test(serviceMessage)) {
          const period = subject.kind === 'player' && subject.period !== undefined ? ` "${subject.period}"` : '';
          return new RefusedError(describe(`GSA refused the mute's period or date${period} (400)`, serviceMessage), details);
        }
        return new RefusedError(describe('GSA refused the System API call (400)', serviceMessage), details);
      case 429: {
        const waitMs = cooldownWaitMs(serviceMessage, subject);
        // Without a cooldown's text it is the key's own limit (100 a minute): a RateLimitedError, as on the mod API.
        if (waitMs === undefined) return errorFromResponse(response, scrub, nowMs);
        const availableAt = nowMs + waitMs;
        return new CooldownError(cooldownMessage(subject, waitMs, availableAt), waitMs, availableAt, details);
      }
      default:
        return errorFromResponse(response, scrub, nowMs);
    }
  };
}

/** The System API v2 dialect: requests, answers and failures. */
export const systemApiV2 = {
  findPlayerRequest,
  playerRequest,
  availableGamesRequest,
  muteRequest,
  unmuteRequest,
  serverActionRequest,
  broadcastRequest,
  parseFoundPlayer,
  parsePlayer,
  parseAvailableGames,
  parseReceipt,
  classify: classifySystemFailure,
} as const;
