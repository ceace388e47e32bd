// The running adapters, one slot per configured adapter (keyed `<server>/<id>`, in config order): builds each
// through the registry, starts it against its server's bridge, and applies a reload's plan: stops what the plan
// removes or changes, starts what it adds or changes, and on a failed start rolls back to the adapters that ran
// before (fresh instances of the ones it stopped). Must never decide what changed (reloadPlan.ts does) and never
// leave an adapter it started running after a failed reload.
import type { Logger } from 'pino';
import { createAdapter, type AdapterContext, type ChatShopCommand } from '../../adapters/index.js';
import type { Adapter } from '../bridge/port.js';
import type { ServerBridge } from '../bridge/serverBridge.js';
import type { PlannedAdapter, ReloadPlan } from './reloadPlan.js';

/** One configured adapter and, when its type runs it, the adapter built for it. */
export interface AdapterSlot extends PlannedAdapter {
  /** Undefined when its type skipped it: it is configured but does not run. */
  readonly adapter: Adapter | undefined;
}

/** What the slots need of the sidecar around them. */
export interface AdapterSlotsOptions {
  /** The context every adapter is built with, besides its server, id and logger. */
  readonly context: Omit<AdapterContext, 'serverName' | 'id' | 'logger' | 'shopCommand'>;
  /** The shop chat commands of a server's adapters, read at each chat line (undefined while the server's allowRequests lacks `shop`). */
  readonly shopCommandOf?: ((server: string) => ChatShopCommand | undefined) | undefined;
  /** The bridge of a server in the running config (a removed adapter is detached from it). */
  readonly bridgeOf: (server: string) => ServerBridge | undefined;
}

/** How applying a plan ended: `down` names (`<server>/<id>`) the old adapters that could not be started again. */
export type SlotsApplyResult = { readonly ok: true } | { readonly ok: false; readonly error: unknown; readonly down: readonly string[] };

export class AdapterSlots {
  readonly #options: AdapterSlotsOptions;
  #slots: AdapterSlot[] = [];

  constructor(options: AdapterSlotsOptions) {
    this.#options = options;
  }

  /** Every configured adapter, in config order. */
  get slots(): readonly AdapterSlot[] {
    return this.#slots;
  }

  /** The adapters running now (skipped ones left out). */
  get adapters(): Adapter[] {
    return this.#slots.flatMap((slot) => (slot.adapter === undefined ? [] : [slot.adapter]));
  }

  /** Builds the first config's adapters (not started): stopAll() reaches them even if start() fails part way. */
  async build(planned: readonly PlannedAdapter[], logger: Logger): Promise<void> {
    const slots: AdapterSlot[] = [];
    for (const slot of planned) slots.push(await this.#build(slot, logger));
    this.#slots = slots;
  }

  /** Starts every built adapter against its bridge, in config order; rejects with the first failure. */
  async start(): Promise<void> {
    for (const slot of this.#slots) {
      const bridge = this.#options.bridgeOf(slot.server);
      if (bridge !== undefined) await startSlot(slot, bridge);
    }
  }

  /**
   * Applies a reload's plan. Stops removed and changed adapters first (a changed adapter usually keeps its port),
   * then starts changed and added ones against `bridgeFor` (which knows the reload's new servers). On a failed start
   * it stops what it started and starts again what it stopped, built with `rollbackLogger`.
   */
  async apply(plan: ReloadPlan, logger: Logger, bridgeFor: (server: string) => ServerBridge | undefined, rollbackLogger: Logger): Promise<SlotsApplyResult> {
    const before = new Map(this.#slots.map((slot) => [slot.key, slot]));
    const toStop = [...plan.removed, ...plan.changed].flatMap((planned) => {
      const slot = before.get(planned.key);
      return slot === undefined ? [] : [slot];
    });
    await Promise.allSettled(toStop.map((slot) => this.#stop(slot)));
    const started: AdapterSlot[] = [];
    try {
      for (const planned of [...plan.changed, ...plan.added]) {
        const built = await this.#build(planned, logger);
        const bridge = bridgeFor(planned.server);
        if (bridge === undefined) continue;
        await startSlot(built, bridge);
        started.push(built);
      }
    } catch (error) {
      // Back to the old config: stop what this reload started, start again what it stopped (fresh instances).
      await Promise.allSettled(started.map((slot) => this.#stop(slot)));
      const down: string[] = [];
      const restarted = new Map<string, AdapterSlot>();
      for (const old of toStop) {
        const bridge = this.#options.bridgeOf(old.server);
        if (bridge === undefined) continue;
        const rebuilt = await this.#build(old, rollbackLogger);
        // Kept even when it fails to start: it then reads as not ready, which /readyz reports.
        restarted.set(old.key, rebuilt);
        try {
          await startSlot(rebuilt, bridge);
        } catch {
          down.push(old.key);
        }
      }
      this.#slots = this.#slots.map((slot) => restarted.get(slot.key) ?? slot);
      return { ok: false, error, down };
    }
    const startedByKey = new Map(started.map((slot) => [slot.key, slot]));
    this.#slots = plan.next.map((slot) => startedByKey.get(slot.key) ?? before.get(slot.key) ?? { ...slot, adapter: undefined });
    return { ok: true };
  }

  /** Stops every adapter; never rejects. */
  async stopAll(): Promise<void> {
    await Promise.allSettled(this.#slots.map(async (slot) => slot.adapter?.stop()));
  }

  /** Builds a slot's adapter through the registry; undefined when its type skips it. */
  async #build(slot: PlannedAdapter, logger: Logger): Promise<AdapterSlot> {
    const { key, server, id, type, options, fingerprint } = slot;
    const { shopCommandOf } = this.#options;
    const shopCommand = shopCommandOf === undefined ? undefined : () => shopCommandOf(server);
    const adapter = await createAdapter(options, { ...this.#options.context, serverName: server, id, logger: logger.child({ server, adapter: id }), shopCommand });
    return { key, server, id, type, options, fingerprint, adapter };
  }

  async #stop(slot: AdapterSlot): Promise<void> {
    if (slot.adapter === undefined) return;
    this.#options.bridgeOf(slot.server)?.detach(slot.adapter);
    await slot.adapter.stop();
  }
}

/** Starts a built slot against its bridge; on failure the adapter is stopped and detached again. */
async function startSlot(slot: AdapterSlot, bridge: ServerBridge): Promise<void> {
  if (slot.adapter === undefined) return;
  // The adapter starts with its own view of the bridge, which names it as the source of its lines' mute lookups.
  const sink = bridge.attach(slot.adapter);
  try {
    await slot.adapter.start(sink);
  } catch (error) {
    bridge.detach(slot.adapter);
    await slot.adapter.stop().catch(() => undefined);
    throw error;
  }
}
