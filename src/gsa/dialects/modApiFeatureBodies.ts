// The shapes of GSA's Mod API v2 feature answers (reference/gsa-api.md), as zod schemas the feature dialect reads
// bodies with, and the identifiers each answer must carry. Lenient where PHP is loose (a boolean may come as 0/1 or
// "true"; an empty map as `[]`; an id as a numeric string), strict where a wrong answer would be trusted.
// Schemas only: it must never do I/O nor decide what a body means (modApiFeatures.ts does).

import { z } from 'zod';

export const ACCESS_IDENTIFIER = 'gsamod-general';
export const REPORT_IDENTIFIER = 'gsamod-general';
export const REPORT_SETTINGS_IDENTIFIER = 'gsamod-ui-report-player';
export const ORDER_IDENTIFIER = 'gameshop-order-response';

/** A PHP boolean as JSON may carry it. */
const looseBoolean = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.literal('true'), z.literal('false')])
  .transform((value) => value === true || value === 1 || value === '1' || value === 'true');

/** A whole number, or the digits of one (a PHP id may come as a string). */
const wholeNumber = z.union([z.int().min(0), z.string().regex(/^\d{1,15}$/).transform(Number)]);

export const accessBody = z.object({
  identifier: z.string(),
  allowed: looseBoolean,
  username_accepted: looseBoolean.nullish(),
  message: z.string().nullish(),
  steam_id: z.unknown().optional(),
  eos_id: z.unknown().optional(),
  // PHP encodes an empty map as []: no roles. A role without an expiry (null) is kept with ''.
  custom_roles: z.union([z.tuple([]), z.record(z.string(), z.string().nullable())]).nullish(),
});

export const reportSettingsBody = z.object({
  data: z.object({
    identifier: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    players: z.array(z.object({ user_id: wholeNumber, name: z.string().nullish() })).nullish(),
    types: z.array(z.object({ id: z.union([z.int(), z.string()]), name: z.string() })).nullish(),
  }),
});

export const reportBody = z.object({
  identifier: z.string(),
  allowed: looseBoolean,
  message: z.string().nullish(),
});

export const orderBody = z.object({
  identifier: z.string(),
  success: looseBoolean,
  message: z.string().nullish(),
});

export const tokenBody = z.object({ data: z.string() });
