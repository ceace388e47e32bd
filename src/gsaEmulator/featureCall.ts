/**
 * What every Mod API v2 feature operation of the emulator shares once the common checks passed (modFeatures.ts): the
 * call's context, the player rule, how GSA echoes ids, the integer rule, and the report form's limits. Split out so
 * the feature router and the shop (shopApi.ts) both use it without importing each other.
 * Must never decide a route or change state itself.
 */
import { jsonReply, type Reply } from './httpIo.js';
import { validatePlayer, type Player } from './modApi.js';
import type { OrderArrival, SpendArrival } from './shopState.js';
import type { EmulatorState } from './state.js';
import { asInteger, attributeName, ValidationErrors, type InputFields } from './validation.js';

/** Longest report comment the emulator stores (GSA documents none; the client sends at most as many). */
export const REPORT_COMMENT_MAX_CHARS = 1000;

/** GSA's coordinates as the ASA mod sends them. */
export const REPORT_COORDS_PATTERN = /^X_-?\d+(\.\d+)? Y_-?\d+(\.\d+)? Z_-?\d+(\.\d+)?$/;

/** The order or token spend a request is, recorded when it arrived; neither for the other features. */
export interface MoneyArrivals {
  readonly order?: OrderArrival | undefined;
  readonly spend?: SpendArrival | undefined;
}

/** What one feature operation gets once the checks every feature makes have passed. */
export interface FeatureCall {
  readonly state: EmulatorState;
  readonly server: string;
  readonly fields: InputFields;
  readonly at: number;
  /** The pack id as the path wrote it (shop pack and order). */
  readonly packId: string | undefined;
  readonly money: MoneyArrivals;
}

/** Validates the one player the call names (422 otherwise), notes them as a System API player, and answers. */
export function withPlayer(call: FeatureCall, answer: (player: Player) => Reply): Reply {
  const errors = new ValidationErrors();
  const player = validatePlayer(call.fields, errors);
  if (player === undefined) return errors.toReply();
  call.state.system.sawPlayerId(player.id, player.kind);
  return answer(player);
}

/** The player's ids as GSA echoes them: the one asked by, and '' for the other. */
export function echoedIds(player: Player): { steam_id: string; eos_id: string } {
  return { steam_id: player.kind === 'steam' ? player.id : '', eos_id: player.kind === 'eos' ? player.id : '' };
}

/** A required integer field (Laravel's `required|integer`), undefined with the error added otherwise. */
export function requiredInteger(fields: InputFields, field: string, errors: ValidationErrors): number | undefined {
  const value = fields.get(field);
  const name = attributeName(field);
  if (value === undefined) {
    errors.add(field, `The ${name} field is required.`);
    return undefined;
  }
  const number = asInteger(value);
  if (number === undefined) errors.add(field, `The ${name} field must be an integer.`);
  return number;
}

/** Laravel's 422 for one field. */
export function fieldError(field: string, message: string): Reply {
  return jsonReply(422, { message, errors: { [field]: [message] } });
}
