/**
 * The emulator's game shop and token spends (GSA's Mod API v2): the shop index (search by name, filter by category),
 * one pack, an order paid from the player's credit, and a token spend. Every order and spend is recorded when it
 * arrives (`openMoneyArrivals`, before any fault), and marked here once processed, so tests see each one exactly as
 * often as a client sent it and whether it was paid.
 * Must never spend twice for one request, and never spend when a check failed (the caller ran them: credentials,
 * budget, server).
 */
import { echoedIds, fieldError, requiredInteger, withPlayer, type FeatureCall, type MoneyArrivals } from './featureCall.js';
import { jsonReply, messageReply, type Reply } from './httpIo.js';
import { asInteger, ValidationErrors, type InputFields } from './validation.js';
import { matchingItems, type AnswerStatus, type ShopState } from './shopState.js';

/** The shop operations this module answers. */
export type ShopOp = 'shop-index' | 'shop-pack' | 'shop-order' | 'tokens';

const PACK_NOT_FOUND_REPLY = messageReply(404, 'Pack not found.');

/** The player named by the request's fields, as a record shows it. */
function playerOf(fields: InputFields): { steamId?: string; eosId?: string } {
  const steam = fields.get('steam_id');
  const eos = fields.get('eos_id');
  return { ...(typeof steam === 'string' ? { steamId: steam } : {}), ...(typeof eos === 'string' ? { eosId: eos } : {}) };
}

/**
 * Records an order or a token spend as it arrives, before faults, credentials or validation: `answer` is the call
 * log's handle, whose status the records read. Nothing for other requests.
 */
export function openMoneyArrivals(
  shop: ShopState,
  request: { readonly op: string | undefined; readonly server: string; readonly packId: string | undefined; readonly fields: InputFields | undefined; readonly at: number },
  answer: AnswerStatus,
): MoneyArrivals {
  const fields = request.fields ?? new Map<string, unknown>();
  const base = { at: request.at, server: request.server, ...playerOf(fields) };
  if (request.op === 'shop-order') return { order: shop.orderArrived({ ...base, packId: request.packId ?? '' }, answer) };
  if (request.op === 'tokens') {
    const amount = asInteger(fields.get('token_amount'));
    return { spend: shop.spendArrived({ ...base, amount: amount ?? null }, answer) };
  }
  return {};
}

export function handleShop(op: ShopOp, call: FeatureCall): Reply {
  switch (op) {
    case 'shop-index':
      return withPlayer(call, () => {
        const search = textField(call.fields, 'search');
        const filter = textField(call.fields, 'filter');
        return jsonReply(200, { identifier: 'gsa-shop-index', data: matchingItems(call.state.shop.catalogue(call.server), search, filter) });
      });
    case 'shop-pack':
      return withPlayer(call, () => {
        const item = packOf(call);
        return item === undefined ? PACK_NOT_FOUND_REPLY : jsonReply(200, { identifier: 'gsa-shop-detail', data: item });
      });
    case 'shop-order':
      return withPlayer(call, (player) => {
        const packId = packIdOf(call);
        if (packId === undefined) return PACK_NOT_FOUND_REPLY;
        const result = call.state.shop.order(call.server, player.id, packId);
        if (result.kind === 'unknown-pack') return PACK_NOT_FOUND_REPLY;
        const success = result.kind === 'done';
        call.money.order?.mark({ processed: true, success, spent: success ? result.item.price : 0 });
        return jsonReply(200, {
          ...echoedIds(player),
          identifier: 'gameshop-order-response',
          success,
          message: success ? `Thank you for your order! ${result.item.name} will be delivered to you in game.` : 'Not enough credit',
        });
      });
    case 'tokens':
      return tokenReply(call);
  }
}

/** `token_amount` must be an integer of at least 1; a player with fewer tokens gets a 422 and keeps them. */
function tokenReply(call: FeatureCall): Reply {
  return withPlayer(call, (player) => {
    const errors = new ValidationErrors();
    const amount = requiredInteger(call.fields, 'token_amount', errors);
    if (amount === undefined) return errors.toReply();
    if (amount < 1) return fieldError('token_amount', 'The token amount field must be at least 1.');
    if (!call.state.shop.spend(player.id, amount)) {
      call.money.spend?.mark({ processed: true, spent: 0 });
      return fieldError('token_amount', 'Not enough tokens.');
    }
    call.money.spend?.mark({ processed: true, spent: amount });
    return jsonReply(200, { data: 'Done!' });
  });
}

/** The pack id of the path as a number (Laravel's route binding: digits only), undefined otherwise. */
function packIdOf(call: FeatureCall): number | undefined {
  const raw = call.packId ?? '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

function packOf(call: FeatureCall): unknown {
  const packId = packIdOf(call);
  return packId === undefined ? undefined : call.state.shop.item(call.server, packId);
}

function textField(fields: InputFields, field: string): string | undefined {
  const value = fields.get(field);
  return typeof value === 'string' ? value : undefined;
}
