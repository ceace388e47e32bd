// The websocket adapter's frame dispatch: one text frame from a mod, checked (shutdown, the per-connection rate,
// binary, UTF-8, the protocol's shape), then answered through the bridge sink: a cached chat verdict in the same
// tick, everything else through one awaited reply (GSA's Mod API requests built by modApiDispatch.ts). A
// `player.join` is noted on its connection, so an access refusal at the door reaches that mod. Every chat frame is reported to the bridge as a chat line read
// (chatLineRead): a valid one as attributed (it carries its player's ids), one refused for its `player` field as
// `unreadable`, so a mod that sends bad players shows up in gsa_bridge_chat_unattributed_total.
// Must never throw into ws, never answer a request twice, and never hold connection or listener state of its own
// (the adapter passes what it needs in DispatchContext).
import { isUtf8 } from 'node:buffer';
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';
import { BridgeRefusal, CHAT_CHANNELS, isChatChannel, type BridgeSink, type ChatVerdict } from '../../src/bridge/port.js';
import { modApiReply, NoModApiError } from './modApiDispatch.js';
import { admitFrame, type ModConnection } from './modConnection.js';
import { parseModMessage, validIdOf, type ModMessage, type PingMessage, type PlayerJoinMessage, type PlayerLeaveMessage, type ProtocolErrorCode } from './protocol.js';
import { refusalWireCode, resultWireCode } from './wireCodes.js';
import { toPlayerIdentity } from './wireFields.js';
import type { UnattributedChat } from '../base/unattributedChat.js';

const ID_KEY = Buffer.from('"id"');

/** Every message that is answered by asking the bridge: all but ping, player.join and player.leave. */
type BridgeRequest = Exclude<ModMessage, PingMessage | PlayerJoinMessage | PlayerLeaveMessage>;
const INTERNAL_ERROR_MESSAGE = 'internal error in the sidecar; the details are in its log';

/** What dispatch needs of the adapter around it. */
export interface DispatchContext {
  /** The adapter's stable id: review origins name it. */
  readonly adapterId: string;
  readonly logger: Logger;
  /** maxMessagesPerSecond; 0: no cap. */
  readonly maxMessagesPerSecond: number;
  /** The message window's clock: only differences between readings count. */
  now(): number;
  /** True once the adapter is stopping: new frames are refused with `unavailable`. */
  stopping(): boolean;
  /** The bridge, once started. */
  sink(): BridgeSink | undefined;
  /** Chat frames whose player cannot be read: counted through the bridge and warned about. */
  readonly unattributed: UnattributedChat;
  /** `mute.gatedChannels` as it is now, named in the warning about a channel outside the vocabulary. */
  readonly gatedChannels?: (() => readonly string[]) | undefined;
  /** Sends one frame; false when the connection cannot take it. */
  send(connection: ModConnection, frame: string): boolean;
  /** A request was handed to the bridge; requestAnswered() follows exactly once (stop() waits for it). */
  requestStarted(): void;
  requestAnswered(): void;
}

export class FrameDispatch {
  readonly #context: DispatchContext;

  constructor(context: DispatchContext) {
    this.#context = context;
  }


  /** One frame from a mod: checked (shutdown, rate, binary, UTF-8, shape), then dispatched; never throws. */
  onFrame(connection: ModConnection, data: RawData, isBinary: boolean): void {
    try {
      connection.alive = true;
      if (connection.socket.readyState !== WebSocket.OPEN) return;
      const bytes = asBuffer(data);
      if (this.#context.stopping()) {
        this.#sendError(connection, 'unavailable', 'the sidecar is shutting down; send it again after it restarts', idInFrame(bytes));
        return;
      }
      const cap = this.#context.maxMessagesPerSecond;
      if (cap > 0 && !admitFrame(connection, cap, this.#context.now())) {
        this.#sendError(connection, 'rate_limited', `more than ${cap} messages in one second on this connection; this one was not processed`, idInFrame(bytes));
        return;
      }
      if (isBinary) {
        this.#context.logger.debug({ connectionId: connection.id }, 'binary frame refused');
        this.#sendError(connection, 'bad_json', 'text frames only: send one JSON object per text frame', idInFrame(bytes));
        return;
      }
      if (!isUtf8(bytes)) {
        this.#context.logger.debug({ connectionId: connection.id }, 'frame is not UTF-8');
        this.#sendError(connection, 'bad_json', 'not valid UTF-8 text');
        return;
      }
      const parsed = parseModMessage(bytes.toString('utf8'));
      if (!parsed.ok) {
        const { error } = parsed;
        this.#context.logger.debug({ connectionId: connection.id, code: error.code, path: error.path }, 'bad frame');
        // Counted, and the host warned (at most once per 10 minutes, with the frame as the sample): a mod's bug.
        if (parsed.type === 'chat' && isPlayerPath(error.path)) this.#context.unattributed.note('unreadable', bytes.toString('utf8'));
        this.#sendError(connection, error.code, error.message, error.id, error.path);
        return;
      }
      this.#dispatch(connection, parsed.message);
    } catch (error) {
      this.#context.logger.error({ connectionId: connection.id, err: error }, 'mod frame handler failed');
      this.#sendError(connection, 'internal', INTERNAL_ERROR_MESSAGE);
    }
  }

  #dispatch(connection: ModConnection, message: ModMessage): void {
    const sink = this.#context.sink();
    if (sink === undefined) throw new Error('frame before start()');
    switch (message.type) {
      case 'ping':
        this.#context.send(connection, JSON.stringify({ type: 'pong', id: message.id }));
        return;
      case 'player.join': {
        const player = toPlayerIdentity(message.player);
        // Before the bridge hears of it: an access check at the join may answer this connection unasked.
        connection.joined.add(player);
        sink.playerJoined(player);
        return;
      }
      case 'player.leave': {
        const player = toPlayerIdentity(message.player);
        connection.joined.delete(player);
        sink.playerLeft(player);
        return;
      }
      case 'chat': {
        sink.chatLineRead?.();
        // The common case, a cached player, is answered in this tick: no promise, no await.
        const verdict = sink.chatNow?.(toPlayerIdentity(message.player), message.channel, message.text);
        if (verdict !== undefined) {
          if (verdict.reason === 'not_gated') this.#checkChannel(connection, message.channel);
          this.#context.send(connection, verdictFrame(message.id, verdict));
          return;
        }
        this.#context.requestStarted();
        void this.#answer(connection, sink, message);
        return;
      }
      default:
        // mute.check, review, server.action and GSA's Mod API requests: each asks the bridge and gets one reply.
        this.#context.requestStarted();
        void this.#answer(connection, sink, message);
        return;
    }
  }

  /**
   * A line let through unchecked: when its channel is not a name of the vocabulary (a mod that says "all" for
   * global chat), the mod's muted players are never gated, and its author needs to know why. Once per connection,
   * not per line (a chatty server would flood the log).
   */
  #checkChannel(connection: ModConnection, channel: string): void {
    if (connection.warnedChannel || isChatChannel(channel)) return;
    connection.warnedChannel = true;
    const gated = this.#context.gatedChannels?.();
    const checked = gated === undefined ? '' : `: ${gated.length === 0 ? 'none' : gated.join(', ')}`;
    this.#context.logger.warn(
      { connectionId: connection.id, remote: connection.remote },
      `a mod sent chat on channel ${JSON.stringify(clipChannel(channel))}, which is not a channel name (${CHAT_CHANNELS.join(', ')}): such lines are never gated, so muted players are let through; the mod should send one of those names (mute.gatedChannels lists the ones checked${checked}). Said once per connection.`,
    );
  }

  /** Asks the bridge and sends the one reply; never rejects. */
  async #answer(connection: ModConnection, sink: BridgeSink, message: BridgeRequest): Promise<void> {
    let reply: string;
    try {
      reply = await this.#replyTo(connection, sink, message);
    } catch (error) {
      reply = this.#errorReply(connection, message, error);
    }
    try {
      this.#context.send(connection, reply);
    } catch (error) {
      this.#context.logger.error({ connectionId: connection.id, err: error }, 'could not send a reply');
    } finally {
      this.#context.requestAnswered();
    }
  }

  async #replyTo(connection: ModConnection, sink: BridgeSink, message: BridgeRequest): Promise<string> {
    switch (message.type) {
      case 'chat': {
        const verdict = await sink.chat(toPlayerIdentity(message.player), message.channel, message.text);
        if (verdict.reason === 'not_gated') this.#checkChannel(connection, message.channel);
        return verdictFrame(message.id, verdict);
      }
      case 'mute.check': {
        const verdict = await sink.checkMute(toPlayerIdentity(message.player));
        return JSON.stringify({
          type: 'mute.status',
          id: message.id,
          player: message.player,
          muted: verdict.muted,
          alert: verdict.muted ? verdict.alert : undefined,
          source: verdict.source,
        });
      }
      case 'review': {
        await sink.submitReview({
          player: toPlayerIdentity(message.player),
          stars: message.stars,
          comment: message.comment,
          origin: { adapter: this.#context.adapterId, ref: connection.id, requestId: message.id },
        });
        return JSON.stringify({ type: 'review.queued', id: message.id });
      }
      case 'server.action': {
        const outcome = await sink.serverAction(message.action, message.countdown, message.message);
        return JSON.stringify(
          outcome.ok
            ? { type: 'server.action.result', id: message.id, ok: true, status: outcome.status, message: outcome.message }
            : { type: 'server.action.result', id: message.id, ok: false, error: { code: resultWireCode(outcome.error.code), message: outcome.error.message } },
        );
      }
      default:
        return modApiReply(sink, message, { adapterId: this.#context.adapterId, connectionId: connection.id });
    }
  }

  #errorReply(connection: ModConnection, message: ModMessage, error: unknown): string {
    if (error instanceof BridgeRefusal) {
      this.#context.logger.debug({ connectionId: connection.id, type: message.type, code: error.code, path: error.path }, 'request refused');
      return errorFrame(refusalWireCode(error.code), error.message, message.id, error.path);
    }
    if (error instanceof NoModApiError) return errorFrame(error.wireCode, error.message, message.id);
    this.#context.logger.error({ connectionId: connection.id, type: message.type, err: error }, 'mod request failed');
    return errorFrame('internal', INTERNAL_ERROR_MESSAGE, message.id);
  }

  #sendError(connection: ModConnection, code: ProtocolErrorCode, message: string, id?: string, path?: string): void {
    this.#context.send(connection, errorFrame(code, message, id, path));
  }
}

export function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Whether a bad_message's field is the player or one of its fields (`player`, `player.steam_id`, …). */
function isPlayerPath(path: string | undefined): boolean {
  return path !== undefined && (path === 'player' || path.startsWith('player.'));
}

/** The id of a frame we will not process, so that even its refusal can be matched to the request. */
export function idInFrame(bytes: Buffer): string | undefined {
  // Cheap test first: a flood of junk must not cost a JSON.parse exception per frame.
  if (!bytes.includes(ID_KEY) || !isUtf8(bytes)) return undefined;
  try {
    const frame: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof frame === 'object' && frame !== null && !Array.isArray(frame) ? validIdOf(frame as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// chat.verdict frames are built as text: fixed shapes, and the allow answers are the same for every chat line
// but the id. Field order and content are what JSON.stringify of the ChatVerdictMessage gives.
const ALLOW_OK_TAIL = ',"allow":true,"reason":"ok"}';
const ALLOW_UNKNOWN_TAIL = ',"allow":true,"reason":"unknown"}';
const ALLOW_NOT_GATED_TAIL = ',"allow":true,"reason":"not_gated"}';
const VERDICT_HEAD = '{"type":"chat.verdict"';

export function verdictFrame(id: string | undefined, verdict: ChatVerdict): string {
  const head = id === undefined ? VERDICT_HEAD : `${VERDICT_HEAD},"id":${JSON.stringify(id)}`;
  if (verdict.allow) return head + (verdict.reason === 'ok' ? ALLOW_OK_TAIL : verdict.reason === 'not_gated' ? ALLOW_NOT_GATED_TAIL : ALLOW_UNKNOWN_TAIL);
  return `${head},"allow":false,"reason":"${verdict.reason}","alert":${JSON.stringify(verdict.alert)}}`;
}

export function errorFrame(code: ProtocolErrorCode, message: string, id?: string, path?: string): string {
  return JSON.stringify({ type: 'error', id, code, message, path });
}

/** A mod's channel string in a log line: the mod may send anything, of any length. */
export function clipChannel(channel: string): string {
  return channel.length > 32 ? `${channel.slice(0, 32)}…` : channel;
}
