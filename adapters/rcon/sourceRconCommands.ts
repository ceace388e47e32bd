// The command table of one Source RCON client: the commands waiting for their turn, the sent ones by id (and by
// mirror id), the request ids, the mirror trailers still due, the ids of commands that timed out (so a late reply is
// told apart from a stranger), and the bytes the answers being joined hold. Each command settles exactly once:
// answered, timed out, cut, or failed with its session; then the client is told a turn is free.
// It must never: hand out an id still in use (in flight, a mirror, a trailer still due, the login's) or one whose low
// three bytes are 0, keep more than LATE_IDS_KEPT late ids, settle a command twice, or write to a socket (the
// client sends; this table only keeps the books).
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

export class SourceRconCommandTable {
  readonly #label: string;
  readonly #maxQueued: number;
  /** Called once a command was queued or settled: the client sends the next when it may. Given once. */
  readonly #turnFree: () => void;
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

  /** `firstRequestId` is floored; out of 1…2^31-1 it means 1. */
  constructor(label: string, maxQueued: number, firstRequestId: number | undefined, turnFree: () => void) {
    this.#label = label;
    this.#maxQueued = maxQueued;
    this.#turnFree = turnFree;
    const firstId = Math.floor(firstRequestId ?? 1);
    this.#nextId = firstId >= 1 && firstId <= MAX_ID ? firstId : 1;
  }

  /** The bytes every in-flight command's answer holds so far. */
  get replyBytes(): number {
    return this.#replyBytes;
  }

  get queued(): number {
    return this.#queue.length;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** The sent commands, oldest first. */
  inFlight(): MapIterator<PendingCommand> {
    return this.#inFlight.values();
  }

  /**
   * Queues one command (the client has checked the session) with its timeout, counted from now; fails at once with
   * queue_full past maxQueuedCommands.
   */
  add(text: string, timeoutMs: number): Promise<string> {
    if (this.#queue.length >= this.#maxQueued) {
      return Promise.reject(
        new RconQueueFullError(`${this.#queue.length} RCON commands already wait for their turn on ${this.#label}: this one was not sent`),
      );
    }
    return new Promise<string>((resolve, reject) => {
      const pending: PendingCommand = {
        text,
        resolve,
        reject,
        timer: undefined,
        quietTimer: undefined,
        id: undefined,
        mirrorId: undefined,
        parts: [],
        bytes: 0,
        settled: false,
      };
      pending.timer = setTimeout(() => {
        this.#timeOut(pending, timeoutMs);
      }, clampTimerMs(timeoutMs));
      this.#queue.push(pending);
      this.#turnFree();
    });
  }

  /** The oldest queued command, taken out of the queue (the client sends it next). */
  nextQueued(): PendingCommand | undefined {
    return this.#queue.shift();
  }

  /** A free request id; `authId` is the login's, which no command may share. */
  newId(authId: number | undefined): number {
    for (;;) {
      const id = this.#nextId;
      this.#nextId = id >= MAX_ID ? 1 : id + 1;
      // Ids whose low three bytes are 0 are skipped: after an empty packet, their replies could look like Squad's junk.
      if ((id & 0xff_ff_ff) === 0) continue;
      if (!this.#inFlight.has(id) && !this.#byMirrorId.has(id) && !this.#trailers.has(id) && id !== authId) return id;
    }
  }

  /** The command goes out with this id: its reply is routed to it from now on. */
  sent(pending: PendingCommand, id: number): void {
    pending.id = id;
    this.#inFlight.set(id, pending);
  }

  /** The mirror packet after the command goes out with this id. */
  mirrorSent(pending: PendingCommand, mirrorId: number): void {
    pending.mirrorId = mirrorId;
    this.#byMirrorId.set(mirrorId, pending);
  }

  /** The in-flight command a reply with this id answers. */
  owner(id: number): PendingCommand | undefined {
    return this.#inFlight.get(id);
  }

  /** The in-flight command whose mirror carries this id. */
  mirrored(id: number): PendingCommand | undefined {
    return this.#byMirrorId.get(id);
  }

  /** One more packet of the owner's answer (the caller has checked maxReplyBytes). */
  addPart(owner: PendingCommand, body: Buffer): void {
    owner.parts.push(body);
    owner.bytes += body.length;
    this.#replyBytes += body.length;
  }

  /** The mirror came back before its trailer: the trailer with this id is still due, and swallowed when it comes. */
  awaitTrailer(mirrorId: number): void {
    this.#trailers.add(mirrorId);
  }

  /** True (once) when a trailer with this id was due. */
  takeTrailer(id: number): boolean {
    return this.#trailers.delete(id);
  }

  /** The id was a command's (or its mirror's) that timed out. */
  isLate(id: number): boolean {
    return this.#lateIds.has(id);
  }

  /** The session ended: no trailer or late reply can come any more. */
  sessionEnded(): void {
    this.#trailers.clear();
    this.#lateIds.clear();
  }

  /** Resolves a command with its parts joined, decoded as UTF-8 only now (a character may span packets). */
  finish(pending: PendingCommand): void {
    if (pending.settled) return;
    this.#forget(pending);
    pending.resolve(Buffer.concat(pending.parts).toString('utf8'));
    this.#turnFree();
  }

  /** Fails one command with `error` (its answer was cut); no turn is freed, the client ends the session. */
  fail(pending: PendingCommand, error: RconError): void {
    this.#forget(pending);
    pending.reject(error);
  }

  /** Fails every sent and queued command, sent ones first, each with the error for whether it was sent. */
  failAll(errorFor: (sent: boolean) => RconError): void {
    const all = [...this.#inFlight.values(), ...this.#queue];
    for (const pending of all) {
      const sent = pending.id !== undefined;
      this.#forget(pending);
      pending.reject(errorFor(sent));
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
    this.#forget(pending);
    pending.reject(
      new RconTimeoutError(
        sent
          ? `no complete answer from the RCON server of ${this.#label} within ${formatMs(timeoutMs)}; the command may have run`
          : `the command waited ${formatMs(timeoutMs)} for its turn on ${this.#label} (rate cap or pipelining depth) and was not sent`,
      ),
    );
    this.#turnFree();
  }

  /** Takes a command out of every table and stops its timers; marks it settled. */
  #forget(pending: PendingCommand): void {
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
}
