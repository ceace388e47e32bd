// Every error the bridge core throws, one class per failure, each with a stable `code` (a class field, as in
// undici): callers branch on `code`, never on message text, and a code once used is never given another meaning.
// Refusals are the bridge saying no to an adapter's request; each adapter maps them onto its own wire codes
// (adapters/websocket/wireCodes.ts). Messages say what went wrong and what to do, and never name a config key:
// the composition root or the CLI adds that context for hosts.

/** Every refusal code the bridge uses. Never reuse or rename one: adapters map them to their wire codes. */
export type BridgeRefusalCode = 'bad_input' | 'cooldown' | 'action_not_allowed' | 'no_gameserver_id' | 'unavailable' | 'request_not_allowed';

/** The bridge refused an adapter's request; nothing was stored or sent. */
export abstract class BridgeRefusal extends Error {
  abstract readonly code: BridgeRefusalCode;
  /** The request field at fault, when one is (`stars`, `comment`, `action`). */
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.name = new.target.name;
    this.path = path;
  }
}

/** Input the bridge will not take (stars out of range, a comment too long). `path` names the field. */
export class BadInputRefusal extends BridgeRefusal {
  readonly code = 'bad_input';
}

/** The player is within the review cooldown. */
export class CooldownRefusal extends BridgeRefusal {
  readonly code = 'cooldown';
}

/** The host did not allow this server action. */
export class ActionNotAllowedRefusal extends BridgeRefusal {
  readonly code = 'action_not_allowed';
}

/** The server's allowRequests does not name this request's group (the message names the group and the key). */
export class RequestNotAllowedRefusal extends BridgeRefusal {
  readonly code = 'request_not_allowed';
}

/** Server actions need the server's GAMESERVER_ID, and none is set (the CLI names the key: servers[].id). */
export class NoGameserverIdRefusal extends BridgeRefusal {
  readonly code = 'no_gameserver_id';
}

/** The sidecar cannot take it right now (shutting down, the journal cannot be written): send it again later. */
export class UnavailableRefusal extends BridgeRefusal {
  readonly code = 'unavailable';
}

/**
 * A player known only by a Mojang id (Minecraft) cannot be looked up: GSA's mod API takes no Mojang id and no System
 * API lookup was given to the bridge. The gate's policy then decides (reason "unknown").
 */
export class MojangLookupMissingError extends Error {
  readonly code = 'mojang_lookup_missing';

  constructor() {
    super("a Minecraft player (Mojang id only) cannot be checked for a mute: GSA's mod API takes no Mojang id; configure api.system (GSA's System API) for Minecraft servers");
    this.name = 'MojangLookupMissingError';
  }
}
