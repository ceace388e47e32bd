// The pending-command table of a Source RCON session: the queue of commands waiting for their turn, the sent ones by
// id (and by mirror id), the id allocation, the bytes their answers hold, and the bookkeeping that tells a late reply
// (of a command that timed out) or a mirror's trailer apart from a stranger. Each command settles exactly once:
// answered, timed out, or failed with the session; the client's pump then sends the next one.
// It must never: hand out an id still in use (in flight, a mirror, an awaited trailer, the login's), hand out an id
// whose low three bytes are 0, keep more than LATE_IDS_KEPT late ids, or settle a command twice.
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconQueueFullError, RconTimeoutError, type RconError } from './errors.js';
import { formatMs } from './sessionLifecycle.js';

const MAX_ID = 2 ** 31 - 1;
const LATE_IDS_KEPT = 256;

export interface PendingCommand {
  readonly text: string;
  readonly resolve: (text: string) => void;
  readonly reject: (error: RconError) => void;
  timer: NodeJS.Timeout | undefined;
  quietTimer: NodeJS.Timeout | undefined;
  id: number | undefined;
  mirrorId: number | undefined;
  readonly parts: Buffer[];
  /** The bytes in `parts`. */
  bytes: number;
  settled: boolean;
}

export interface CommandTableOptions {
  readonly label: string;
  readonly maxQueued: number;
  /** The first id handed out; out of range means 1. */
  readonly firstId: number | undefined;
  /** A command was queued or settled: the next may go. */
  readonly pump: () => void;
}

export class SourceRconCommandTable {
  readonly #label: string;
  readonly #maxQueued: number;
  readonly #pump: () => void;
  #nextId: number;
  readonly #queue: PendingCommand[] = [];
  /** Sent commands by id, in the order they were sent (Map keeps insertion order). */
  readonly #inFlight = new Map<number, PendingCommand>();
  readonly #byMirrorId = new Map<number, PendingCommand>();
  /** Mirror ids whose 00 01 00 00 trailer may still come. */
  readonly #trailers = new Set<number>();
  /** Ids of commands that timed out, so their late replies are told apart from strangers. */
  readonly #lateIds = new Set<number>();
  /** The bytes of every in-flight command's parts, for the per-connection cap. */
  #replyBytes = 0;

  constructor(options: CommandTableOptions) {
    this.#label = options.label;
    this.#maxQueued = options.maxQueued;
    this.#pump = options.pump;
    const firstId = Math.floor(options.firstId ?? 1);
    this.#nextId = firstId >= 1 && firstId <= MAX_ID ? firstId : 1;
  }

  get replyBytes(): number {
    return this.#replyBytes;
  }

  get queued(): number {
    return this.#queue.length;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** Sent commands, oldest first. */
  inFlight(): IterableIterator<PendingCommand> {
    return this.#inFlight.values();
  }

  /** Queues one command with its timeout (the client has checked the session); rejects at once past maxQueued. */
  add(text: string, timeoutMs: number): Promise<string> {
    if (this.#queue.length >= this.#maxQueued) {
      return Promise.reject(
        new RconQueueFullError(`${this.#queue.length} RCON commands already wait for their turn on ${this.#label}: this one was not sent`),
      );
    }
    return new Promise<string>((resolve, reject) => {
      const pending: PendingCommand = { text, resolve, reject, timer: undefined, quietTimer: undefined, id: undefined, mirrorId: undefined, parts: [], bytes: 0, settled: false };
      pending.timer = setTimeout(() => {
        this.#timeOut(pending, timeoutMs);
      }, clampTimerMs(timeoutMs));
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** The next queued command, taken out of the queue. */
  next(): PendingCommand | undefined {
    return this.#queue.shift();
  }

  /** A free id; `authId` is the login's, which a reply must never be taken for. */
  newId(authId: number | undefined): number {
    for (;;) {
      const id = this.#nextId;
      this.#nextId = id >= MAX_ID ? 1 : id + 1;
      // Ids whose low three bytes are 0 are skipped: after an empty packet, their replies could look like Squad's junk.
      if ((id & 0xff_ff_ff) === 0) continue;
      if (!this.#inFlight.has(id) && !this.#byMirrorId.has(id) && !this.#trailers.has(id) && id !== authId) return id;
    }
  }

  sent(pending: PendingCommand, id: number): void {
    pending.id = id;
    this.#inFlight.set(id, pending);
  }

  mirrorSent(pending: PendingCommand, mirrorId: number): void {
    pending.mirrorId = mirrorId;
    this.#byMirrorId.set(mirrorId, pending);
  }

  owner(id: number): PendingCommand | undefined {
    return this.#inFlight.get(id);
  }

  mirrored(id: number): PendingCommand | undefined {
    return this.#byMirrorId.get(id);
  }

  addPart(owner: PendingCommand, body: Buffer): void {
    owner.parts.push(body);
    owner.bytes += body.length;
    this.#replyBytes += body.length;
  }

  awaitTrailer(mirrorId: number): void {
    this.#trailers.add(mirrorId);
  }

  /** True (once) when this id is an awaited trailer's. */
  takeTrailer(id: number): boolean {
    return this.#trailers.delete(id);
  }

  isLate(id: number): boolean {
    return this.#lateIds.has(id);
  }

  /** The session ended: its trailers and late replies can no longer come. */
  sessionEnded(): void {
    this.#trailers.clear();
    this.#lateIds.clear();
  }

  /** Resolves a command with its joined parts, decoded as UTF-8 only now (a character may span packets). */
  finish(pending: PendingCommand): void {
    if (pending.settled) return;
    this.forget(pending);
    pending.resolve(Buffer.concat(pending.parts).toString('utf8'));
    this.#pump();
  }

  /** Fails every sent and queued command with the error for whether it was sent. */
  failAll(errorFor: (sent: boolean) => RconError): void {
    const all = [...this.#inFlight.values(), ...this.#queue];
    for (const pending of all) {
      const sent = pending.id !== undefined;
      this.forget(pending);
      pending.reject(errorFor(sent));
    }
  }

  /** Takes a command out of every table and stops its timers; marks it settled. */
  forget(pending: PendingCommand): void {
    pending.settled = true;
    clearTimeout(pending.timer);
    clearTimeout(pending.quietTimer);
    if (pending.id !== undefined) this.#inFlight.delete(pending.id);
    if (pending.mirrorId !== undefined) this.#byMirrorId.delete(pending.mirrorId);
    this.#replyBytes -= pending.bytes;
    pending.bytes = 0;
    // Only a command not yet sent is still in the queue: a sent one needs no scan of it.
    if (pending.id === undefined) {
      const queued = this.#queue.indexOf(pending);
      if (queued >= 0) this.#queue.splice(queued, 1);
    }
  }

  #timeOut(pending: PendingCommand, timeoutMs: number): void {
    if (pending.settled) return;
    const sent = pending.id !== undefined;
    if (pending.id !== undefined) {
      this.#lateIds.add(pending.id);
      if (pending.mirrorId !== undefined) this.#lateIds.add(pending.mirrorId);
      while (this.#lateIds.size > LATE_IDS_KEPT) {
        const oldest = this.#lateIds.values().next().value;
        if (oldest === undefined) break;
        this.#lateIds.delete(oldest);
      }
    }
    this.forget(pending);
    pending.reject(
      new RconTimeoutError(
        sent
          ? `no complete answer from the RCON server of ${this.#label} within ${formatMs(timeoutMs)}; the command may have run`
          : `the command waited ${formatMs(timeoutMs)} for its turn on ${this.#label} (rate cap or pipelining depth) and was not sent`,
      ),
    );
    this.#pump();
  }
}
