// The mod protocol's requests for GSA's Mod API v2 features (the access check, player reports, the shop, tokens, the
// dashboard's UI settings): zod schemas for what a mod sends, TypeScript types for what the sidecar answers. The
// names (player.access, character_id, shop.order.result) are a public contract: add fields, never rename or remove one.
// Must never do I/O, never hold a range that depends on the host's config (the bridge checks allowRequests and
// cooldowns), and never type an answer with anything but GSA's own data: no credential ever reaches a mod.
import { z } from 'zod';
import { idSchema, playerSchema, requiredOr, type ModPlayer } from './wireFields.js';

/** GSA's position form, as its report endpoint takes it. */
export const COORDS_PATTERN = /^X_-?\d+(\.\d+)? Y_-?\d+(\.\d+)? Z_-?\d+(\.\d+)?$/;
export const MAX_COORDS_LENGTH = 100;
export const MAX_REPORT_TYPE_LENGTH = 64;
export const MAX_REPORT_COMMENT_LENGTH = 1000;
export const MAX_SHOP_QUERY_LENGTH = 100;
export const MAX_TOKEN_AMOUNT = 1_000_000;
/** Mods built on GSA's string ids send a pack id as digits in a string; 10 digits stay far inside a safe integer. */
const PACK_ID_DIGITS = /^\d{1,10}$/;

const playerAccessSchema = z.object({
  type: z.literal('player.access'),
  id: idSchema.optional(),
  player: playerSchema,
});

const reportSettingsSchema = z.object({
  type: z.literal('report.settings'),
  id: idSchema.optional(),
  player: playerSchema,
});

const REPORT_TYPE_EXPECTED = `one of the report settings' type ids: a whole number, or a string of 1–${MAX_REPORT_TYPE_LENGTH} characters`;
const reportTypeSchema = z.union(
  [z.string().min(1, `must be ${REPORT_TYPE_EXPECTED}`).max(MAX_REPORT_TYPE_LENGTH, `must be ${REPORT_TYPE_EXPECTED}`), z.int({ error: `must be ${REPORT_TYPE_EXPECTED}` })],
  { error: `must be ${REPORT_TYPE_EXPECTED}` },
);

const reportSchema = z.object({
  type: z.literal('report'),
  id: idSchema.optional(),
  player: playerSchema,
  character_id: z.int({ error: requiredOr("a whole number (the reporter's in-game character id)") }),
  coords: z
    .string({ error: requiredOr('a string like "X_123 Y_456 Z_789"') })
    .max(MAX_COORDS_LENGTH, `must be at most ${MAX_COORDS_LENGTH} characters`)
    .regex(COORDS_PATTERN, 'must be GSA\'s form "X_<n> Y_<n> Z_<n>", like "X_123 Y_-45.5 Z_789"'),
  // `type` names the message, so the report's type id (GSA's form field `type`) travels as `report_type`; `reportType`
  // and `type_id` are taken too (the spec's table could only be read so), `report_type` first when several are sent.
  report_type: reportTypeSchema.optional(),
  reportType: reportTypeSchema.optional(),
  type_id: reportTypeSchema.optional(),
  reported_player: z
    .int({ error: "must be a positive whole number (a user_id from the report settings' players)" })
    .positive("must be a positive whole number (a user_id from the report settings' players)")
    .optional(),
  comment: z
    .string({ error: requiredOr(`a string of 1–${MAX_REPORT_COMMENT_LENGTH} characters`) })
    .min(1, `must be a string of 1–${MAX_REPORT_COMMENT_LENGTH} characters`)
    .max(MAX_REPORT_COMMENT_LENGTH, `must be a string of 1–${MAX_REPORT_COMMENT_LENGTH} characters`),
}).refine((report) => report.report_type !== undefined || report.reportType !== undefined || report.type_id !== undefined, {
  message: `required (${REPORT_TYPE_EXPECTED})`,
  path: ['report_type'],
});

const shopQueryText = z
  .string({ error: `must be a string of at most ${MAX_SHOP_QUERY_LENGTH} characters` })
  .max(MAX_SHOP_QUERY_LENGTH, `must be a string of at most ${MAX_SHOP_QUERY_LENGTH} characters`)
  .optional();

const shopListSchema = z.object({
  type: z.literal('shop.list'),
  id: idSchema.optional(),
  player: playerSchema,
  search: shopQueryText,
  filter: shopQueryText,
});

const PACK_ID_EXPECTED = "a positive whole number (GSA's pack id), or its digits as a string";
const packIdSchema = z
  .union([z.int({ error: `must be ${PACK_ID_EXPECTED}` }), z.string().regex(PACK_ID_DIGITS, `must be ${PACK_ID_EXPECTED}`)], { error: requiredOr(PACK_ID_EXPECTED) })
  .transform(Number)
  .refine((item) => item >= 1, `must be ${PACK_ID_EXPECTED}`);

const shopItemSchema = z.object({
  type: z.literal('shop.item'),
  id: idSchema.optional(),
  player: playerSchema,
  item: packIdSchema,
});

const shopOrderSchema = z.object({
  type: z.literal('shop.order'),
  id: idSchema.optional(),
  player: playerSchema,
  item: packIdSchema,
});

const TOKEN_AMOUNT_EXPECTED = `a whole number from 1 to ${MAX_TOKEN_AMOUNT.toLocaleString('en-US')}`;
const tokenConsumeSchema = z.object({
  type: z.literal('token.consume'),
  id: idSchema.optional(),
  player: playerSchema,
  amount: z
    .int({ error: requiredOr(TOKEN_AMOUNT_EXPECTED) })
    .min(1, `must be ${TOKEN_AMOUNT_EXPECTED}`)
    .max(MAX_TOKEN_AMOUNT, `must be ${TOKEN_AMOUNT_EXPECTED}`),
});

const uiSettingsSchema = z.object({
  type: z.literal('ui.settings'),
  id: idSchema.optional(),
});

const uiModalSchema = z.object({
  type: z.literal('ui.modal'),
  id: idSchema.optional(),
});

/** The Mod API requests by type, in the order the docs list them; protocol.ts adds them to the ones it parses. */
export const MOD_API_MESSAGE_SCHEMAS = {
  'player.access': playerAccessSchema,
  'report.settings': reportSettingsSchema,
  report: reportSchema,
  'shop.list': shopListSchema,
  'shop.item': shopItemSchema,
  'shop.order': shopOrderSchema,
  'token.consume': tokenConsumeSchema,
  'ui.settings': uiSettingsSchema,
  'ui.modal': uiModalSchema,
} as const;

// ---- Mod → sidecar ----------------------------------------------------------------------------------------------

export type PlayerAccessMessage = z.output<typeof playerAccessSchema>;
export type ReportSettingsMessage = z.output<typeof reportSettingsSchema>;
export type ReportMessage = z.output<typeof reportSchema>;
export type ShopListMessage = z.output<typeof shopListSchema>;
export type ShopItemMessage = z.output<typeof shopItemSchema>;
export type ShopOrderMessage = z.output<typeof shopOrderSchema>;
export type TokenConsumeMessage = z.output<typeof tokenConsumeSchema>;
export type UiSettingsMessage = z.output<typeof uiSettingsSchema>;
export type UiModalMessage = z.output<typeof uiModalSchema>;
/** Every Mod API request a mod may send. */
export type ModApiMessage =
  | PlayerAccessMessage
  | ReportSettingsMessage
  | ReportMessage
  | ShopListMessage
  | ShopItemMessage
  | ShopOrderMessage
  | TokenConsumeMessage
  | UiSettingsMessage
  | UiModalMessage;
export type ModApiMessageType = ModApiMessage['type'];

// ---- Sidecar → mod ----------------------------------------------------------------------------------------------

/**
 * GSA's access check. With an `id`: the answer to `player.access`. Without one: pushed unasked after the mod's
 * `player.join` of a player GSA does not allow (the host enforces access): `allowed` is false and the mod removes the
 * player, showing `message`. `source`: `policy` when GSA could not be asked and the host's access.onUnknown decided.
 */
export interface PlayerAccessResultMessage {
  readonly type: 'player.access.result';
  readonly id?: string | undefined;
  readonly player: ModPlayer;
  readonly allowed: boolean;
  readonly message?: string | undefined;
  /** GSA's custom roles: role id → ISO expiry. */
  readonly roles: Readonly<Record<string, string>>;
  readonly source: 'cache' | 'service' | 'policy';
}

export interface ReportSettingsResultMessage {
  readonly type: 'report.settings.result';
  readonly id?: string | undefined;
  readonly title: string;
  readonly description: string;
  readonly players: readonly { readonly user_id: number; readonly name: string }[];
  readonly types: readonly { readonly id: number | string; readonly name: string }[];
}

/** The report is stored durably: it will reach GSA even if the sidecar restarts. */
export interface ReportQueuedMessage {
  readonly type: 'report.queued';
  readonly id?: string | undefined;
}

export type ReportResultMessage =
  | { readonly type: 'report.result'; readonly id?: string | undefined; readonly ok: true; readonly message?: string | undefined }
  | {
      readonly type: 'report.result';
      readonly id?: string | undefined;
      readonly ok: false;
      readonly error: { readonly code: string; readonly message: string };
    };

/** GSA's answer as GSA sent it (parsed JSON): the shop's index or one pack, the UI settings, the vote screen. */
export interface ModApiDataMessage {
  readonly type: 'shop.list.result' | 'shop.item.result' | 'ui.settings.result' | 'ui.modal.result';
  readonly id?: string | undefined;
  readonly data: unknown;
}

/**
 * A shop order's or a token spend's fate. `unconfirmed`: sent, and its answer was lost; the sidecar never sends it
 * again (money moves at most once), so a mod must not either without the player asking anew.
 */
export interface MoneyResultMessage {
  readonly type: 'shop.order.result' | 'token.consume.result';
  readonly id?: string | undefined;
  readonly ok: boolean;
  readonly state: 'done' | 'refused' | 'unconfirmed';
  readonly message?: string | undefined;
}

/** Every Mod API message the sidecar sends. */
export type ModApiReplyMessage =
  | PlayerAccessResultMessage
  | ReportSettingsResultMessage
  | ReportQueuedMessage
  | ReportResultMessage
  | ModApiDataMessage
  | MoneyResultMessage;
