// One mod connection of the websocket adapter and the little state its hot path needs: liveness, backpressure,
// the per-connection message window, and write batching within one loop turn. Must never read a frame or talk to
// the bridge (frameDispatch.ts does), and never allocate per message on the send path.
import type { Duplex } from 'node:stream';
import { setImmediate as afterThisTurn } from 'node:timers';
import type { WebSocket } from 'ws';
import { JoinedPlayers } from './joinedPlayers.js';

/** The per-connection message window of maxMessagesPerSecond. */
const RATE_WINDOW_MS = 1_000;

/** One mod connection and the little state the hot path needs. */
export class ModConnection {
  readonly id: string;
  readonly socket: WebSocket;
  readonly remote: string;
  /** Answered a ping (or sent anything) since the last heartbeat. */
  alive = true;
  /** Not being read because the peer is not reading our replies. */
  paused = false;
  windowStartedAt = 0;
  framesInWindow = 0;
  /** Told the host once that this mod sends a channel outside the vocabulary (its lines are never gated). */
  warnedChannel = false;
  /** The players this mod said joined (and has not said left): an unasked access refusal goes to this mod. */
  readonly joined = new JoinedPlayers();
  /** The one send callback of this connection: a per-message closure would cost an allocation on the hot path. */
  readonly afterSend: (error?: Error) => void;
  /** The TCP socket under `socket`, corked while one turn of the event loop piles up replies. */
  readonly #tcp: Duplex;
  #corked = false;
  readonly #uncork = (): void => {
    this.#corked = false;
    this.#tcp.uncork();
  };

  constructor(id: string, socket: WebSocket, tcp: Duplex, remote: string, afterSend: (connection: ModConnection) => void) {
    this.id = id;
    this.socket = socket;
    this.#tcp = tcp;
    this.remote = remote;
    this.afterSend = () => {
      afterSend(this);
    };
  }

  /**
   * Holds this turn's frames back until the loop's check phase, then writes them together: a batch of chat
   * lines read at once (or of verdicts whose deadline passed at once) costs one write system call, not one
   * each, which is most of what a reply costs. Adds no wait beyond the end of the current loop turn.
   */
  holdWritesForThisTurn(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.#tcp.cork();
    afterThisTurn(this.#uncork);
  }
}

/** Counts the frame in the connection's current one-second window; false when it is over the cap. */
export function admitFrame(connection: ModConnection, cap: number, now: number): boolean {
  if (now - connection.windowStartedAt >= RATE_WINDOW_MS) {
    connection.windowStartedAt = now;
    connection.framesInWindow = 0;
  }
  connection.framesInWindow++;
  return connection.framesInWindow <= cap;
}
