// The bridge's two ports for the parts above it, driven with small implementations of their own (as another store
// or filter would be): the review store (src/bridge/reviewStore.ts) and the line filter (src/bridge/lineFilter.ts).
// What the bridge promises through them: a review the store refused is not acknowledged and may be sent again at
// once; a store's bug is not hidden as a refusal; the store's remembered reviews hold the cooldown; a filter's verdict
// decides a gated line before the mute gate, with the bridge as the site that can tell the player.
import { afterEach, describe, expect, it } from 'vitest';
import { CooldownRefusal, UnavailableRefusal } from '../../src/bridge/errors.js';
import type { FilterSite, LineFilter } from '../../src/bridge/lineFilter.js';
import type { ChatVerdict, PlayerIdentity, ReviewRequest } from '../../src/bridge/port.js';
import { ReviewNotStoredError, type RememberedReview, type ReviewStore, type ReviewToStore } from '../../src/bridge/reviewStore.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import { GsaClient } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';

const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const REVIEW: ReviewRequest = { player: ALICE, stars: 5, comment: 'great', origin: { adapter: 'mod', ref: 'connection-1', requestId: 'r1' } };

class DiskFull extends ReviewNotStoredError {
  readonly code = 'storage';
}

/** A store in memory whose next answers a test scripts. */
class ScriptedStore implements ReviewStore {
  readonly stored: ReviewToStore[] = [];
  readonly refusals: Error[] = [];

  constructor(readonly accepted: readonly RememberedReview[] = []) {}

  get pending(): number {
    return this.stored.length;
  }

  enqueue(review: ReviewToStore): Promise<{ readonly id: string }> {
    const refusal = this.refusals.shift();
    if (refusal !== undefined) return Promise.reject(refusal);
    this.stored.push(review);
    return Promise.resolve({ id: `review-${String(this.stored.length)}` });
  }
}

const clients: GsaClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

function bridge(outbox: ReviewStore, filter?: LineFilter, cooldownMs = 60_000): ServerBridge {
  // Never called: nothing here asks the service.
  const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
  clients.push(client);
  return new ServerBridge({
    server: { name: 'alpha', allowActions: [] },
    mute: { mutedTtlMs: 60_000, unmutedTtlMs: 300_000, decisionTimeoutMs: 300, onUnknown: 'allow', defaultAlert: 'muted' },
    reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs },
    client,
    outbox,
    filter,
    logger: silentLogger(),
    clock: { now: () => 1_000_000 },
  });
}

describe('the review store port', () => {
  it('stores the review as admitted, with the server it was heard on', async () => {
    const store = new ScriptedStore();
    await bridge(store).submitReview(REVIEW);
    expect(store.stored).toEqual([{ server: 'alpha', player: ALICE, stars: 5, comment: 'great', origin: REVIEW.origin }]);
  });

  it('answers unavailable when the store refused, and lets the player send it again at once', async () => {
    const store = new ScriptedStore();
    store.refusals.push(new DiskFull('the journal could not be written'));
    const subject = bridge(store);
    await expect(subject.submitReview(REVIEW)).rejects.toBeInstanceOf(UnavailableRefusal);
    await subject.submitReview(REVIEW);
    expect(store.stored).toHaveLength(1);
  });

  it("does not dress a store's bug up as a refusal", async () => {
    const store = new ScriptedStore();
    const bug = new TypeError('cannot read properties of undefined');
    store.refusals.push(bug);
    await expect(bridge(store).submitReview(REVIEW)).rejects.toBe(bug);
  });

  it("holds the cooldown of a review the store remembers on this server, not another server's", async () => {
    const here = bridge(new ScriptedStore([{ server: 'alpha', player: ALICE, at: 1_000_000 - 1_000 }]));
    await expect(here.submitReview(REVIEW)).rejects.toBeInstanceOf(CooldownRefusal);
    const elsewhere = new ScriptedStore([{ server: 'beta', player: ALICE, at: 1_000_000 - 1_000 }]);
    await bridge(elsewhere).submitReview(REVIEW);
    expect(elsewhere.stored).toHaveLength(1);
  });
});

describe('the line filter port', () => {
  const BLOCKED: ChatVerdict = Object.freeze({ allow: false, reason: 'filtered', alert: 'mind your words' });

  /** Blocks lines containing "badword" and notes where it was asked from. */
  class WordBlocker implements LineFilter {
    readonly sites: FilterSite[] = [];
    constructor(readonly dryRun: boolean) {}
    check(_player: PlayerIdentity, text: string, site: FilterSite): ChatVerdict | undefined {
      this.sites.push(site);
      return text.includes('badword') ? BLOCKED : undefined;
    }
  }

  it('decides a gated line before the mute gate, with the bridge as the site', () => {
    const filter = new WordBlocker(false);
    const subject = bridge(new ScriptedStore(), filter);
    expect(subject.chatNow(ALICE, 'global', 'a badword here')).toBe(BLOCKED);
    expect(filter.sites).toEqual([subject]);
    expect(subject.chatNow(ALICE, 'team', 'a badword here')).toEqual({ allow: true, reason: 'not_gated' });
    expect(filter.sites).toHaveLength(1);
  });

  it('in a dry run, lets the line through to the mute gate', () => {
    const filter = new WordBlocker(true);
    const subject = bridge(new ScriptedStore(), filter);
    // Not cached yet: the mute gate cannot decide now, and the dry run blocked nothing.
    expect(subject.chatNow(ALICE, 'global', 'a badword here')).toBeUndefined();
  });
});
