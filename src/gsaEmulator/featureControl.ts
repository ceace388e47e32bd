/**
 * The controls of the emulator's Mod API v2 features, shared by the HTTP control surface (controlApi.ts) and
 * GsaEmulator's methods: each takes its input as JSON would carry it, checks it strictly (unknown keys, wrong types
 * and unknown servers are an EmulatorInputError naming the field), and sets the state.
 * Must never answer HTTP or record a call; never leave the state half changed when the input is refused.
 */
import { z } from 'zod';
import { describeIssues, EmulatorInputError } from './errors.js';
import type { EmulatorState } from './state.js';

const accessBody = z.strictObject({
  player: z.string().min(1),
  allowed: z.boolean(),
  message: z.string().nullable().optional(),
  roles: z.record(z.string(), z.string()).optional(),
  usernameAccepted: z.boolean().optional(),
});
const reportSettingsBody = z.strictObject({
  server: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  players: z.array(z.strictObject({ id: z.int(), user_id: z.int().min(0), name: z.string() })).optional(),
  types: z.array(z.strictObject({ id: z.union([z.int(), z.string().min(1)]), name: z.string() })).optional(),
});
const catalogueBody = z.strictObject({
  server: z.string(),
  items: z.array(
    z.strictObject({
      id: z.int().min(1),
      name: z.string().min(1),
      price: z.int().min(0),
      description: z.string().optional(),
      category: z.string().optional(),
    }),
  ),
});
const walletBody = z.strictObject({ player: z.string().min(1), credit: z.int().min(0).optional(), tokens: z.int().min(0).optional() });
const jsonObject = z.record(z.string(), z.unknown());
const uiBody = z.strictObject({ server: z.string(), settings: jsonObject.optional(), buttonModal: jsonObject.optional() });

/** What `setAccess` takes: a player's answer to the access check (`integration-mod`). */
export type AccessInput = z.input<typeof accessBody>;
/** What `setReportSettings` takes: the parts of a server's report form to replace. */
export type ReportSettingsInput = z.input<typeof reportSettingsBody>;
/** What `setCatalogue` takes: a server's whole shop. */
export type CatalogueInput = z.input<typeof catalogueBody>;
/** What `setWallet` takes: a player's credit and/or tokens. */
export type WalletInput = z.input<typeof walletBody>;
/** What `setUi` takes: the bodies a server's settings and button modal answer (their identifier aside). */
export type UiInput = z.input<typeof uiBody>;

function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new EmulatorInputError(describeIssues(result.error));
  return result.data;
}

/** The server name, when the emulator knows it. @throws EmulatorInputError naming the known ones otherwise. */
function knownServer(state: EmulatorState, server: string): string {
  if (state.serverByName(server) !== undefined) return server;
  const known = state.servers.map((entry) => entry.name).join(', ');
  throw new EmulatorInputError(`server: '${server}' is not a known server (known: ${known === '' ? 'none' : known})`);
}

/** A player's access on every server: allowed or not, GSA's message, custom roles, whether the name is accepted. */
export function setAccess(state: EmulatorState, input: unknown): void {
  const { player, allowed, message, roles, usernameAccepted } = parse(accessBody, input);
  state.features.setAccess(player, { allowed, message: message ?? null, roles: roles ?? {}, usernameAccepted: usernameAccepted ?? true });
}

export function setReportSettings(state: EmulatorState, input: unknown): void {
  const { server, ...settings } = parse(reportSettingsBody, input);
  state.features.setReportSettings(knownServer(state, server), settings);
}

/** Replaces a server's catalogue; pack ids must be unique. */
export function setCatalogue(state: EmulatorState, input: unknown): void {
  const { server, items } = parse(catalogueBody, input);
  if (new Set(items.map((item) => item.id)).size !== items.length) throw new EmulatorInputError('items: each pack id may be used once');
  state.shop.setCatalogue(
    knownServer(state, server),
    items.map((item) => ({ ...item, description: item.description ?? '', category: item.category ?? '' })),
  );
}

export function setWallet(state: EmulatorState, input: unknown): void {
  const { player, credit, tokens } = parse(walletBody, input);
  state.shop.setWallet(player, { credit, tokens });
}

export function setUi(state: EmulatorState, input: unknown): void {
  const { server, settings, buttonModal } = parse(uiBody, input);
  state.features.setUi(knownServer(state, server), { ...(settings === undefined ? {} : { settings }), ...(buttonModal === undefined ? {} : { buttonModal }) });
}
