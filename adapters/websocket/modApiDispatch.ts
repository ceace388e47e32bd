// One Mod API request of a mod (player.access, report, shop.*, token.consume, ui.*) to the bridge's ModApiSink, and
// its one reply frame. Refusals and failures are the caller's (frameDispatch.ts words every rejection alike).
// Must never put anything but GSA's data in a reply (each answer is rebuilt field by field, so a credential the sink
// might hold can never ride along), never send, and never answer a request twice.
import type { BridgeSink, ModApiSink, MoneyOutcome } from '../../src/bridge/port.js';
import type { ModApiMessage, ModApiReplyMessage, MoneyResultMessage } from './modApiMessages.js';
import type { ProtocolErrorCode } from './protocol.js';
import { toPlayerIdentity } from './wireFields.js';

/** What a Mod API request needs of the connection it came on. */
export interface ModApiRequestContext {
  /** The adapter's stable id: report origins and money origins name it. */
  readonly adapterId: string;
  /** The connection's id: a report's result is routed back to it (or to the adapter's newest one). */
  readonly connectionId: string;
}

/** The sink offers no Mod API (a sidecar built without it): the request gets `error` code `unavailable`. */
export class NoModApiError extends Error {
  readonly code = 'no_mod_api';
  readonly wireCode: ProtocolErrorCode = 'unavailable';

  constructor() {
    super('this sidecar offers no GSA mod API requests');
    this.name = 'NoModApiError';
  }
}

/** Asks the sink and builds the reply; rejects with the sink's refusal or failure, or NoModApiError. */
export async function modApiReply(sink: BridgeSink, message: ModApiMessage, context: ModApiRequestContext): Promise<string> {
  const api = sink.modApi;
  if (api === undefined) throw new NoModApiError();
  return JSON.stringify(await replyOf(api, message, context));
}

async function replyOf(api: ModApiSink, message: ModApiMessage, context: ModApiRequestContext): Promise<ModApiReplyMessage> {
  const { id } = message;
  switch (message.type) {
    case 'player.access': {
      const verdict = await api.access(toPlayerIdentity(message.player));
      return {
        type: 'player.access.result',
        id,
        player: message.player,
        allowed: verdict.allowed,
        message: verdict.message,
        roles: verdict.roles,
        source: verdict.source,
      };
    }
    case 'report.settings': {
      const view = await api.reportSettings(toPlayerIdentity(message.player));
      return {
        type: 'report.settings.result',
        id,
        title: view.title,
        description: view.description,
        players: view.players.map((player) => ({ user_id: player.user_id, name: player.name })),
        types: view.types.map((type) => ({ id: type.id, name: type.name })),
      };
    }
    case 'report':
      await api.submitReport({
        player: toPlayerIdentity(message.player),
        characterId: message.character_id,
        coords: message.coords,
        // The schema makes sure one of them is there.
        type: message.report_type ?? message.reportType ?? message.type_id ?? '',
        reportedPlayer: message.reported_player,
        comment: message.comment,
        origin: { adapter: context.adapterId, ref: context.connectionId, requestId: id },
      });
      return { type: 'report.queued', id };
    case 'shop.list':
      return { type: 'shop.list.result', id, data: await api.shopList(toPlayerIdentity(message.player), { search: message.search, filter: message.filter }) };
    case 'shop.item':
      return { type: 'shop.item.result', id, data: await api.shopItem(toPlayerIdentity(message.player), message.item) };
    case 'shop.order':
      return moneyReply('shop.order.result', id, await api.shopOrder(toPlayerIdentity(message.player), message.item, { adapter: context.adapterId, requestId: id }));
    case 'token.consume':
      return moneyReply('token.consume.result', id, await api.consumeTokens(toPlayerIdentity(message.player), message.amount, { adapter: context.adapterId, requestId: id }));
    case 'ui.settings':
      return { type: 'ui.settings.result', id, data: await api.uiSettings() };
    case 'ui.modal':
      return { type: 'ui.modal.result', id, data: await api.uiModal() };
  }
}

function moneyReply(type: MoneyResultMessage['type'], id: string | undefined, outcome: MoneyOutcome): MoneyResultMessage {
  return { type, id, ok: outcome.ok, state: outcome.state, message: outcome.message };
}
