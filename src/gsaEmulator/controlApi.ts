/**
 * The control surface under `/_emulator/`: lets tests, the demo and other processes read the emulator's
 * state and change it (mutes, eligibility, locks, servers, faults, the window watch, the enforced API budget,
 * reset) over HTTP. For the System API v2 (JSON bodies, strict: unknown keys are a 400):
 *   POST /_emulator/player          {ids: [{type: 'steam'|'eos'|'mojang'|…, id}], name?, uuid?} → {uuid}: seeds a player
 *                                   (uuid default: derived from the first id, the one it has when seen by the mod API)
 *   POST /_emulator/server-online   {id, online}: an offline server answers its actions (start excepted) with 400
 *   POST /_emulator/system-mute     {uuid, until?: ISO date-time | null, note?}: a dashboard-wide mute, no cooldown
 *   POST /_emulator/system-unmute   {uuid}
 *   GET  /_emulator/system-actions  the accepted game-server actions and broadcasts, oldest first
 * `reset` clears System API mutes, cooldowns, offline marks and actions, and keeps its players.
 * For the Mod API v2 features (featureState.ts, shopState.ts; `reset` puts every one back to its defaults):
 *   POST /_emulator/access          {player, allowed, message?, roles?, usernameAccepted?}: the player's access check
 *   POST /_emulator/report-settings {server, title?, description?, players?, types?}: the server's report form
 *   GET  /_emulator/reports         the reports stored, oldest first
 *   POST /_emulator/catalogue       {server, items: [{id, name, price, description?, category?}]}: the server's shop
 *   GET  /_emulator/wallet          players whose credit or tokens were set or spent
 *   POST /_emulator/wallet          {player, credit?, tokens?}
 *   GET  /_emulator/orders          every shop order that arrived (faulted, refused, unanswered too), oldest first
 *   GET  /_emulator/token-spends    every token spend that arrived, as orders
 *   POST /_emulator/ui              {server, settings?, buttonModal?}: the bodies of settings and button-modal
 * Faults aim at them by endpoint: access, report-settings, report, shop, shop-order, tokens, ui.
 * It takes no credentials, so it is for local use only: never expose an emulator beyond loopback.
 * Must never record its own calls, take faults, or answer with the client secret.
 */
import { z } from 'zod';
import { describeIssues, EmulatorInputError } from './errors.js';
import { parseFaultSpec, parseWindowSpec } from './faults.js';
import { setAccess, setCatalogue, setReportSettings, setUi, setWallet } from './featureControl.js';
import { jsonReply, messageReply, type Reply } from './httpIo.js';
import type { EmulatorState } from './state.js';
import { SERVICE_TYPES } from './systemState.js';

export const CONTROL_PREFIX = '/_emulator/';

export interface ControlContext {
  readonly state: EmulatorState;
  /** The emulator's clock: the budget report counts what is inside its window now. */
  readonly now: () => number;
  /** Unix ms: which System API mutes the state snapshot still shows. */
  readonly wallClock: () => number;
}

export interface ControlRequest {
  readonly method: string;
  /** The path after `/_emulator/`, e.g. 'mute'. */
  readonly route: string;
  readonly body: Buffer;
}

const muteBody = z.strictObject({ server: z.string(), player: z.string(), alert: z.string().optional() });
const unmuteBody = z.strictObject({ server: z.string(), player: z.string() });
const ineligibleBody = z.strictObject({ server: z.string(), player: z.string(), message: z.string().nullable() });
const lockBody = z.strictObject({ serverId: z.int(), locked: z.boolean() });
const serverBody = z.strictObject({ name: z.string(), id: z.int().optional() });
const playerBody = z.strictObject({
  ids: z.array(z.strictObject({ type: z.enum(SERVICE_TYPES), id: z.string().min(1) })).min(1),
  name: z.string().min(1).optional(),
  uuid: z.string().optional(),
});
const serverOnlineBody = z.strictObject({ id: z.int(), online: z.boolean() });
const systemMuteBody = z.strictObject({ uuid: z.string(), until: z.iso.datetime({ offset: true }).nullable().optional(), note: z.string().optional() });
const systemUnmuteBody = z.strictObject({ uuid: z.string() });
const OK: Reply = jsonReply(200, { ok: true });

type Handler = (ctx: ControlContext, body: () => unknown) => Reply;

/** route → method → handler; `body()` parses lazily so GETs ignore whatever body they carry. */
const ROUTES: Readonly<Record<string, Readonly<Record<string, Handler>>>> = {
  state: { GET: (ctx) => jsonReply(200, ctx.state.snapshot(ctx.wallClock())) },
  calls: { GET: (ctx) => jsonReply(200, ctx.state.calls) },
  // Counters for every call since start or reset, and the window watch; bounded however long the run.
  stats: {
    GET: (ctx) =>
      jsonReply(200, { counters: ctx.state.arrivals.counters(), window: ctx.state.arrivals.windowReport(), budget: ctx.state.budget.report(ctx.now()) }),
  },
  window: {
    POST: (ctx, body) => {
      ctx.state.arrivals.watchWindow(parseWindowSpec(body()));
      return OK;
    },
  },
  // The API budget enforced per key: POST {requests, intervalMs} sets it (counts start over), DELETE stops it, GET
  // reads it (null when off) with the calls each key had counted and refused.
  budget: {
    GET: (ctx) => jsonReply(200, ctx.state.budget.report(ctx.now())),
    POST: (ctx, body) => {
      ctx.state.budget.enforce(parseWindowSpec(body()));
      return OK;
    },
    DELETE: (ctx) => {
      ctx.state.budget.enforce(null);
      return OK;
    },
  },
  reviews: { GET: (ctx) => jsonReply(200, ctx.state.reviews) },
  mute: {
    POST: (ctx, body) => {
      const { server, player, alert } = parse(muteBody, body());
      ctx.state.mute(server, player, alert);
      return OK;
    },
  },
  unmute: {
    POST: (ctx, body) => {
      const { server, player } = parse(unmuteBody, body());
      ctx.state.unmute(server, player);
      return OK;
    },
  },
  ineligible: {
    POST: (ctx, body) => {
      const { server, player, message } = parse(ineligibleBody, body());
      ctx.state.setIneligible(server, player, message);
      return OK;
    },
  },
  lock: {
    POST: (ctx, body) => {
      const { serverId, locked } = parse(lockBody, body());
      ctx.state.lock(serverId, locked);
      return OK;
    },
  },
  servers: {
    GET: (ctx) => jsonReply(200, ctx.state.snapshot().servers),
    POST: (ctx, body) => {
      const { name, id } = parse(serverBody, body());
      ctx.state.addServer(name, id);
      return OK;
    },
  },
  faults: {
    GET: (ctx) => jsonReply(200, ctx.state.faults.list()),
    POST: (ctx, body) => {
      ctx.state.faults.add(parseFaultSpec(body()));
      return OK;
    },
    DELETE: (ctx) => {
      ctx.state.faults.clear();
      return OK;
    },
  },
  player: {
    POST: (ctx, body) => {
      const { ids, name, uuid } = parse(playerBody, body());
      return jsonReply(200, { uuid: ctx.state.system.addPlayer({ ids, name, uuid }) });
    },
  },
  'server-online': {
    POST: (ctx, body) => {
      const { id, online } = parse(serverOnlineBody, body());
      if (ctx.state.serverById(id) === undefined) throw new EmulatorInputError(`id: ${id} is not the id of a known server`);
      ctx.state.system.setOnline(id, online);
      return OK;
    },
  },
  'system-mute': {
    POST: (ctx, body) => {
      const { uuid, until, note } = parse(systemMuteBody, body());
      ctx.state.system.mute(uuid, until === undefined || until === null ? null : Date.parse(until), note);
      return OK;
    },
  },
  'system-unmute': {
    POST: (ctx, body) => {
      ctx.state.system.unmute(parse(systemUnmuteBody, body()).uuid);
      return OK;
    },
  },
  'system-actions': { GET: (ctx) => jsonReply(200, ctx.state.system.actions) },
  access: {
    POST: (ctx, body) => {
      setAccess(ctx.state, body());
      return OK;
    },
  },
  'report-settings': {
    POST: (ctx, body) => {
      setReportSettings(ctx.state, body());
      return OK;
    },
  },
  reports: { GET: (ctx) => jsonReply(200, ctx.state.features.reports) },
  catalogue: {
    POST: (ctx, body) => {
      setCatalogue(ctx.state, body());
      return OK;
    },
  },
  wallet: {
    GET: (ctx) => jsonReply(200, ctx.state.shop.wallets),
    POST: (ctx, body) => {
      setWallet(ctx.state, body());
      return OK;
    },
  },
  orders: { GET: (ctx) => jsonReply(200, ctx.state.shop.orders) },
  'token-spends': { GET: (ctx) => jsonReply(200, ctx.state.shop.tokenSpends) },
  ui: {
    POST: (ctx, body) => {
      setUi(ctx.state, body());
      return OK;
    },
  },
  reset: {
    POST: (ctx) => {
      ctx.state.reset();
      return OK;
    },
  },
};

export function handleControl(ctx: ControlContext, req: ControlRequest): Reply {
  const methods = Object.hasOwn(ROUTES, req.route) ? ROUTES[req.route] : undefined;
  if (methods === undefined) return messageReply(404, 'Not found.');
  const handler = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
  if (handler === undefined) {
    const allowed = Object.keys(methods).join(', ');
    return messageReply(405, `The ${req.method} method is not supported for ${CONTROL_PREFIX}${req.route}. Supported methods: ${allowed}.`, {
      allow: allowed,
    });
  }
  try {
    return handler(ctx, () => parseJson(req.body));
  } catch (error) {
    if (error instanceof EmulatorInputError) return messageReply(400, error.message);
    throw error;
  }
}

function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EmulatorInputError(`body: not valid JSON (${error instanceof Error ? error.message : 'parse error'})`);
  }
}

function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new EmulatorInputError(describeIssues(result.error));
  return result.data;
}
