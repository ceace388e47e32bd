// Notifications against a local fake of Discord's webhook API (real node:http): bodies as Discord and the generic
// JSON receiver get them; a 429's retry_after honoured (no post before it passed, on fake timers); failures retried
// with backoff, then dropped with one warning a run; a refused webhook not retried; a hanging receiver's queue
// bounded and its close bounded; an unchanged webhook's sender (its queue, its spacing) kept across a reload; and no
// log line ever holding the URL, its path or its token (the logger here has no secrets to scrub: the sender itself
// must never write them).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BridgeEvents } from '../../src/bridge/events.js';
import { createLogger } from '../../src/log/logger.js';
import { Notifier } from '../../src/notify/notifier.js';
import type { Notification } from '../../src/notify/notifyEvents.js';
import { WebhookSender, type WebhookSenderOptions } from '../../src/notify/webhookSender.js';
import { FakeDiscordWebhook } from '../fixtures/fakeDiscordWebhook.js';
import { settleIo, waitForIo } from '../fixtures/ioWaits.js';

interface Line {
  readonly level: number;
  readonly msg: string;
}

const WARN = 40;
const AT = Date.UTC(2026, 10, 28, 1, 0, 0);

const fakes: FakeDiscordWebhook[] = [];
const closers: (() => Promise<unknown>)[] = [];
let raw: string[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const close of closers.splice(0).reverse()) await close();
  // Whatever each test did, no line held a webhook's URL, path or token.
  for (const fake of fakes.splice(0)) {
    for (const secret of [fake.url, fake.path, fake.token]) expect(raw.join('')).not.toContain(secret);
    await fake.close();
  }
  raw = [];
});

async function fakeDiscord(options: { genericJson?: boolean } = {}): Promise<FakeDiscordWebhook> {
  const fake = await FakeDiscordWebhook.start(options);
  fakes.push(fake);
  return fake;
}

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Line[] } {
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => raw.push(line) } });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Line) };
}

function sender(fake: FakeDiscordWebhook, logger: ReturnType<typeof createLogger>, options: Partial<WebhookSenderOptions> = {}): WebhookSender {
  const made = new WebhookSender({ url: fake.url, name: 'notify.webhooks[0]', logger, random: () => 0, ...options });
  closers.push(() => made.close(0));
  return made;
}

const warnings = (lines: readonly Line[]): string[] => lines.filter((line) => line.level === WARN).map((line) => line.msg);

function notification(message: string, server: string | null = 'alpha'): Notification {
  return { kind: 'state', state: 'adapter_down', phase: 'start', severity: 'warning', server, adapter: 'alpha-mod', message, at: AT };
}

describe('notifications to webhooks', () => {
  it('posts Discord embeds and the exact JSON body, each to its own webhook, from the events the sidecar publishes', async () => {
    const discord = await fakeDiscord();
    const json = await fakeDiscord({ genericJson: true });
    const { logger, lines } = capture();
    const events = new BridgeEvents();
    const notifier = new Notifier({
      config: { webhooks: [{ url: discord.url, format: 'discord' }, { url: json.url, format: 'json' }], afterMs: 300_000, moderation: true },
      sources: { adapters: () => [], serviceProblems: () => [], budgetHoldSeconds: () => 0 },
      events,
      logger,
    });
    closers.push(() => notifier.close(0));
    notifier.start();
    expect(lines().map((line) => line.msg)).toContain(`notifications go to notify.webhooks[0] (discord, ${new URL(discord.url).host}), notify.webhooks[1] (json, ${new URL(json.url).host})`);

    events.emit('moderation', { server: 'alpha', action: 'mute', result: 'ok' });
    await waitForIo(() => discord.accepted.length === 1 && json.accepted.length === 1, 'both webhooks answered 204');
    expect(json.posts[0]?.contentType).toBe('application/json');
    const body = json.accepted[0] as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['event', 'severity', 'server', 'adapter', 'message', 'at']);
    expect(body).toMatchObject({ event: 'moderation.mute', severity: 'info', server: 'alpha', adapter: null, message: 'On alpha, the chat filter muted a player.' });
    expect(Date.parse(String(body.at))).not.toBeNaN();
    expect(discord.accepted[0]).toMatchObject({ embeds: [{ title: 'Chat filter: a player muted', description: 'On alpha, the chat filter muted a player.' }], allowed_mentions: { parse: [] } });

    // Text from outside cannot ping: the body Discord receives carries no live mention.
    notifier.notify(notification('GSA said: @everyone look <@123>', '@here'));
    await waitForIo(() => notifier.senders.every((webhook) => webhook.sent === 2), 'the second notification');
    const received = JSON.stringify(discord.accepted[1]);
    expect(received).not.toMatch(/@(everyone|here)|<@1/);
    expect(discord.accepted[1]).toMatchObject({ allowed_mentions: { parse: [] } });

    // A reload that drops the JSON webhook: only Discord hears the next one.
    notifier.reconfigure({ webhooks: [{ url: discord.url, format: 'discord' }], afterMs: 300_000, moderation: true });
    events.emit('moderation', { server: 'alpha', action: 'warn', result: 'ok' });
    await waitForIo(() => discord.accepted.length === 3, 'the third embed');
    await settleIo();
    expect(json.posts).toHaveLength(2);
    expect(notifier.senders).toHaveLength(1);
    expect(lines().map((line) => line.msg).at(-1)).toBe(`notifications go to notify.webhooks[0] (discord, ${new URL(discord.url).host})`);
  });

  it('keeps an unchanged webhook’s sender across a reload: the notification waiting for Discord’s bucket still goes, nothing dropped', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const events = new BridgeEvents();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    const config = { webhooks: [{ url: fake.url, format: 'discord' as const }], afterMs: 300_000, moderation: true };
    const notifier = new Notifier({ config, sources: { adapters: () => [], serviceProblems: () => [], budgetHoldSeconds: () => 0 }, events, logger });
    closers.push(() => notifier.close(0));
    notifier.start();
    // The first post empties Discord's bucket for 30 s: the second waits in the sender's queue.
    fake.answerNext({ kind: 'ok', bucketEmptyForSeconds: 30 });
    notifier.notify(notification('first'));
    await waitForIo(() => fake.accepted.length === 1, 'the first post');
    notifier.notify(notification('second'));
    const [sender] = notifier.senders;
    expect(sender?.queued).toBe(1);

    // A reload that changes the rules only (the same list, in a new object, as a parsed file gives it).
    notifier.reconfigure({ webhooks: [{ url: fake.url, format: 'discord' }], afterMs: 60_000, moderation: false });
    expect(notifier.senders).toHaveLength(1);
    expect(notifier.senders[0]).toBe(sender);
    expect(sender?.queued).toBe(1);
    // Still spaced by the bucket the kept sender learned: nothing before the 30 s, the waiting post after them.
    await vi.advanceTimersByTimeAsync(29_000);
    await settleIo();
    expect(fake.posts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await waitForIo(() => fake.accepted.length === 2, 'the second post after the bucket reset');
    expect(JSON.stringify(fake.accepted[1])).toContain('second');
    expect(sender?.dropped).toBe(0);
    expect(warnings(lines())).toEqual([]);
    // Nothing to tell: the same webhooks, so no new "notifications go to" line.
    expect(lines().filter((line) => line.msg.startsWith('notifications go to'))).toHaveLength(1);
  });

  it('does nothing at all without a webhook: no subscription, no sampling; a reload that adds one starts it, one that empties the list stops it', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const events = new BridgeEvents();
    let samples = 0;
    const sources = {
      adapters: () => {
        samples += 1;
        return [];
      },
      serviceProblems: () => [],
      budgetHoldSeconds: () => 0,
    };
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    const notifier = new Notifier({ config: undefined, sources, events, logger });
    closers.push(() => notifier.close(0));
    notifier.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(samples).toBe(0);
    expect(events.listens('review') || events.listens('moderation')).toBe(false);
    expect(lines()).toEqual([]);

    notifier.reconfigure({ webhooks: [{ url: fake.url, format: 'discord' }], afterMs: 10_000, moderation: false });
    expect(events.listens('review')).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(samples).toBe(5);

    notifier.reconfigure({ webhooks: [], afterMs: 10_000, moderation: false });
    expect(events.listens('review')).toBe(false);
    await vi.advanceTimersByTimeAsync(5000);
    expect(samples).toBe(5);
    expect(lines().map((line) => line.msg).at(-1)).toBe('notifications off: notify.webhooks is empty');
  });

  it('honours a 429’s retry_after: no post before 1.5 s passed, then the same body again', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const webhook = sender(fake, logger);
    // Discord's 429: retry_after 1.5 in the body, Retry-After: 2 in the header; the body's float decides.
    fake.answerNext({ kind: 'rate_limited', retryAfterSeconds: 1.5 });
    webhook.send({ content: 'first' });
    await waitForIo(() => lines().some((line) => line.msg.includes('answered 429: waiting 1500 ms')), 'the 429 seen');
    await vi.advanceTimersByTimeAsync(1499);
    await settleIo();
    expect(fake.posts.map((post) => post.status)).toEqual([429]);
    await vi.advanceTimersByTimeAsync(1);
    await waitForIo(() => webhook.sent === 1, 'the post after the wait');
    expect(fake.posts.map((post) => [post.status, post.body])).toEqual([
      [429, { content: 'first' }],
      [204, { content: 'first' }],
    ]);
    expect(webhook.sent).toBe(1);
    expect(warnings(lines())).toEqual([]);
  });

  it('spaces the next post by Discord’s bucket headers (X-RateLimit-Remaining 0), before a 429 happens', async () => {
    const fake = await fakeDiscord();
    const { logger } = capture();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const webhook = sender(fake, logger);
    fake.answerNext({ kind: 'ok', bucketEmptyForSeconds: 2.5 });
    webhook.send({ content: 'one' });
    webhook.send({ content: 'two' });
    await waitForIo(() => webhook.sent === 1, 'the first post');
    await vi.advanceTimersByTimeAsync(2499);
    await settleIo();
    expect(fake.posts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await waitForIo(() => webhook.sent === 2, 'the second post');
    expect(fake.posts.map((post) => post.status)).toEqual([204, 204]);
  });

  it('retries a 5xx with backoff, then drops it: one warning for a run of drops, one line when posts get through again', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const webhook = sender(fake, logger, { retries: 2, backoff: { minDelayMs: 1, maxDelayMs: 2 } });
    fake.answerAlways({ kind: 'status', status: 500 });
    webhook.send({ content: 'a' });
    webhook.send({ content: 'b' });
    await waitForIo(() => webhook.dropped === 2, 'both dropped');
    // Each body: one post and two retries.
    expect(fake.posts.map((post) => (post.body as { content: string }).content)).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    expect(warnings(lines())).toEqual([
      'a notification to notify.webhooks[0] (' + new URL(fake.url).host + ') was dropped: the receiver answered 500, 3 tries. Later ones that fail are counted until one gets through',
    ]);
    fake.answerAlways({ kind: 'ok' });
    webhook.send({ content: 'c' });
    await waitForIo(() => webhook.sent === 1, 'posts get through again');
    expect(lines().map((line) => line.msg)).toContain(`notifications to notify.webhooks[0] (${new URL(fake.url).host}) get through again; 2 were dropped meanwhile`);
  });

  it('drops a post the receiver refuses (a deleted webhook’s 404) without retrying, naming the key to check', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const webhook = sender(fake, logger, { backoff: { minDelayMs: 1, maxDelayMs: 2 } });
    fake.answerNext({ kind: 'status', status: 404 });
    webhook.send({ content: 'gone' });
    await waitForIo(() => webhook.dropped === 1, 'dropped');
    await settleIo();
    expect(fake.posts).toHaveLength(1);
    expect(warnings(lines())).toEqual([
      `a notification to notify.webhooks[0] (${new URL(fake.url).host}) was dropped: the receiver answered 404: the webhook was deleted or its URL is wrong; check notify.webhooks[0].url. Later ones that fail are counted until one gets through`,
    ]);
  });

  it('keeps a hanging receiver’s queue bounded (the oldest dropped, one warning), and close abandons it at its deadline', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const webhook = sender(fake, logger, { maxQueued: 5 });
    fake.answerAlways({ kind: 'hang' });
    for (let i = 0; i < 100; i++) webhook.send({ content: `n${String(i)}` });
    await waitForIo(() => fake.posts.length === 1, 'the first post hangs');
    expect(webhook.queued).toBe(5);
    expect(webhook.dropped).toBe(94);
    expect(warnings(lines())).toEqual([
      `notifications to notify.webhooks[0] (${new URL(fake.url).host}) are piling up (the receiver is slow or down): the oldest waiting ones are dropped beyond 5`,
    ]);
    await webhook.close(0);
    expect(warnings(lines()).at(-1)).toBe(`6 notifications to notify.webhooks[0] (${new URL(fake.url).host}) were not sent: it was closed (the sidecar stopped, or a reload changed notify.webhooks)`);
    // Nothing is taken after close, and nothing throws.
    webhook.send({ content: 'late' });
    expect(webhook.queued).toBe(0);
  });

  it('gives up on a post with no answer within its timeout, and on a receiver that refuses connections, by error code only', async () => {
    const fake = await fakeDiscord();
    const { logger, lines } = capture();
    const webhook = sender(fake, logger, { timeoutMs: 200, retries: 0 });
    fake.answerNext({ kind: 'hang' });
    webhook.send({ content: 'slow' });
    await waitForIo(() => webhook.dropped === 1, 'timed out');
    expect(warnings(lines())).toEqual([expect.stringContaining('was dropped: no answer within 200 ms, 1 tries')]);

    const gone = await FakeDiscordWebhook.start();
    await gone.close();
    fakes.push(gone);
    const refused = sender(gone, logger, { retries: 0, name: 'notify.webhooks[1]' });
    refused.send({ content: 'nobody' });
    await waitForIo(() => refused.dropped === 1, 'refused');
    expect(warnings(lines()).at(-1)).toMatch(/^a notification to notify\.webhooks\[1\] \(127\.0\.0\.1:\d+\) was dropped: the post failed \(ECONNREFUSED\), 1 tries/);
  });
});
