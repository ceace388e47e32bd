// The two bodies a webhook gets: Discord's (one embed that cannot ping anyone, outside text neutralised, every part
// inside Discord's limits) and the generic JSON, exactly {event, severity, server, adapter, message, at}.
import { describe, expect, it } from 'vitest';
import { cutTo, DISCORD_LIMITS, discordBody, neutraliseDiscordText } from '../../src/notify/discordFormat.js';
import { jsonBody } from '../../src/notify/jsonFormat.js';
import type { Notification } from '../../src/notify/notifyEvents.js';

const AT = Date.UTC(2026, 10, 28, 1, 0, 0);

const unreachable: Notification = {
  kind: 'state',
  state: 'gsa_unreachable',
  phase: 'start',
  severity: 'critical',
  server: null,
  adapter: null,
  message: 'GSA has been unreachable for 5 min (41 requests failed so far)',
  at: AT,
};

describe('the json body', () => {
  it('is exactly {event, severity, server, adapter, message, at}, with null for no server or adapter', () => {
    expect(jsonBody(unreachable)).toStrictEqual({
      event: 'gsa_unreachable.start',
      severity: 'critical',
      server: null,
      adapter: null,
      message: 'GSA has been unreachable for 5 min (41 requests failed so far)',
      at: '2026-11-28T01:00:00.000Z',
    });
    const down: Notification = { kind: 'state', state: 'adapter_down', phase: 'end', severity: 'info', server: 'alpha', adapter: 'alpha-mod', message: 'up again', at: AT };
    expect(Object.keys(jsonBody(down))).toEqual(['event', 'severity', 'server', 'adapter', 'message', 'at']);
    expect(jsonBody(down)).toMatchObject({ event: 'adapter_down.end', server: 'alpha', adapter: 'alpha-mod' });
    expect(jsonBody({ kind: 'moderation', step: 'mute', severity: 'info', server: 'alpha', adapter: null, message: 'muted', at: AT }).event).toBe('moderation.mute');
  });

  it('keeps the message as written: the receiver renders it', () => {
    expect(jsonBody({ ...unreachable, message: 'GSA said: **@everyone** <b>' }).message).toBe('GSA said: **@everyone** <b>');
  });
});

describe('the Discord body', () => {
  it('is one embed with no mention allowed, coloured by severity (green for an end), fields for server, adapter and event', () => {
    const body = discordBody({ kind: 'state', state: 'adapter_down', phase: 'start', severity: 'warning', server: 'alpha', adapter: 'alpha-mod', message: 'down for 5 min', at: AT });
    expect(body).toStrictEqual({
      embeds: [
        {
          title: 'Adapter down',
          description: 'down for 5 min',
          color: 0xe67e22,
          timestamp: '2026-11-28T01:00:00.000Z',
          fields: [
            { name: 'Server', value: 'alpha', inline: true },
            { name: 'Adapter', value: 'alpha\\-mod', inline: true },
            { name: 'Event', value: 'adapter\\_down.start', inline: true },
          ],
          footer: { text: 'gsa-bridge' },
        },
      ],
      allowed_mentions: { parse: [] },
    });
    expect(discordBody({ ...unreachable, phase: 'end', severity: 'info' }).embeds[0].color).toBe(0x2ecc71);
    expect(discordBody(unreachable).embeds[0].color).toBe(0xe74c3c);
  });

  it('neutralises mentions, markdown and masked links in text from outside', () => {
    const hostile = 'GSA said: @everyone @here <@123456789> <#42> **bold** __u__ ~~s~~ `code` ||spoiler|| [click](https://evil.example) > quote\n# heading\u0007';
    const { description, fields } = discordBody({ ...unreachable, server: '@everyone', message: hostile }).embeds[0];
    expect(description).not.toMatch(/@(everyone|here)/);
    expect(description).not.toMatch(/<[@#]/);
    expect(description).toContain('@\u200beveryone');
    expect(description).toContain('\\*\\*bold\\*\\*');
    expect(description).toContain('\\[click\\]\\(https://evil.example\\)');
    expect(description).toContain('\\|\\|spoiler\\|\\|');
    expect(description).toContain('\\`code\\`');
    expect(description).toContain('\n\\# heading');
    expect(description).not.toContain('\u0007');
    expect(fields[0]).toEqual({ name: 'Server', value: '@\u200beveryone', inline: true });
    expect(neutraliseDiscordText('a_b')).toBe('a\\_b');
  });

  it('stays inside Discord’s limits however long the text from outside is', () => {
    const long = 'x'.repeat(10_000);
    const embed = discordBody({ ...unreachable, server: 's'.repeat(2000), adapter: 'a'.repeat(2000), message: long }).embeds[0];
    expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(embed.description.endsWith('…')).toBe(true);
    for (const field of embed.fields) expect(field.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
    const total = embed.title.length + embed.description.length + embed.footer.text.length + embed.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
    // Markdown characters double in length when escaped; the cut happens after escaping, and never leaves a lone backslash.
    const starred = discordBody({ ...unreachable, message: '*'.repeat(5000) }).embeds[0].description;
    expect(starred.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(starred).toMatch(/(\\\*)+…$/);
    expect(cutTo('ab\\*cd', 4)).toBe('ab…');
    expect(cutTo('a😀b', 3)).toBe('a…');
  });
});
