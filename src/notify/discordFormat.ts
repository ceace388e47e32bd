// A notification as the body of a Discord webhook execution (POST /webhooks/{id}/{token}): one embed, coloured by
// severity, and `allowed_mentions: { parse: [] }`, so no text can ping anyone. Text that may come from outside (GSA's
// words in a message, server and adapter names) is neutralised first: markdown escaped, mentions and masked links
// broken, and every field cut to Discord's limits (embed title 256, description 4096, field value 1024, 6000 in all).
// Pure: it never sends, and never puts anything in the title but our own words.

import { eventName, titleOf, type Notification, type NotifySeverity } from './notifyEvents.js';

/** Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
export const DISCORD_LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, footer: 2048, embedTotal: 6000 } as const;

const COLOURS: Readonly<Record<NotifySeverity, number>> = {
  critical: 0xe74c3c,
  warning: 0xe67e22,
  info: 0x3498db,
};
/** The end of a state is good news: green, whatever its severity. */
const RESOLVED_COLOUR = 0x2ecc71;

export interface DiscordEmbedField {
  readonly name: string;
  readonly value: string;
  readonly inline: boolean;
}

export interface DiscordWebhookBody {
  readonly embeds: readonly [
    {
      readonly title: string;
      readonly description: string;
      readonly color: number;
      readonly timestamp: string;
      readonly fields: readonly DiscordEmbedField[];
      readonly footer: { readonly text: string };
    },
  ];
  readonly allowed_mentions: { readonly parse: readonly [] };
}

/**
 * `text` shown as itself by Discord: markdown characters escaped (a backslash before * _ ~ ` | > # - [ ] ( ) and \),
 * `@` followed by a zero-width space (no `@everyone`, `@here`, `<@id>` can form), `<` likewise (no `<#channel>`,
 * `<t:…>`), and control characters other than a line break dropped.
 */
export function neutraliseDiscordText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '')
    .replace(/[\\*_~`|>#\-[\]()]/g, (char) => `\\${char}`)
    .replace(/[@<]/g, (char) => `${char}\u200b`);
}

/** At most `max` characters; a cut text ends in "…" (a cut never leaves a lone backslash escaping it into something else). */
export function cutTo(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Never half a surrogate pair (an emoji in a server's words).
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  // An escape cut in half would escape the ellipsis; drop the dangling backslash.
  if (/(^|[^\\])(\\\\)*\\$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function field(name: string, value: string, inline: boolean): DiscordEmbedField {
  return { name: cutTo(name, DISCORD_LIMITS.fieldName), value: cutTo(neutraliseDiscordText(value), DISCORD_LIMITS.fieldValue), inline };
}

export function discordBody(notification: Notification): DiscordWebhookBody {
  const fields: DiscordEmbedField[] = [];
  if (notification.server !== null) fields.push(field('Server', notification.server, true));
  if (notification.adapter !== null) fields.push(field('Adapter', notification.adapter, true));
  if (notification.kind === 'moderation' && notification.player !== undefined) {
    const { id, name } = notification.player;
    fields.push(field('Player', name === null ? id : `${id} (${name})`, true));
  }
  fields.push(field('Event', eventName(notification), true));
  const title = cutTo(titleOf(notification), DISCORD_LIMITS.title);
  const footer = 'gsa-bridge';
  const used = title.length + footer.length + fields.reduce((sum, { name, value }) => sum + name.length + value.length, 0);
  // The whole embed stays under 6000 characters: the description gets what the rest leaves.
  const description = cutTo(neutraliseDiscordText(notification.message), Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embedTotal - used));
  const ended = notification.kind === 'state' && notification.phase === 'end';
  return {
    embeds: [
      {
        title,
        description,
        color: ended ? RESOLVED_COLOUR : COLOURS[notification.severity],
        timestamp: new Date(notification.at).toISOString(),
        fields,
        footer: { text: footer },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}
