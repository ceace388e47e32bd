// The command queue of one telnet console client: commands run one at a time, and a command's answer is the non-log
// lines that follow it, up to the caller's terminator or, without one, until the console has been quiet for quietMs.
// After a sent command timed out, its late answer lines are drained (the next command waits for quiet), so they are
// never taken for the next command's answer. Lines no command waits for are logged once, then summed up.
// It must never: send a command while another waits for its answer or while a late answer drains, hold more than
// maxQueuedCommands or more than maxReplyBytes of one answer (the client drops the session), settle a command twice,
// write one log line per stray line, or log a line's text (the client hands it only lines after the login).
import type { Socket } from 'node:net';
import { RepeatSummary, type RepeatSummaryReport } from '../../src/log/repeatSummary.js';
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconQueueFullError, RconReplyTooLargeError, RconTimeoutError, type RconError } from './errors.js';
import { formatBytes, formatMs } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';

type StrayKind = 'unowned_line' | 'late_line';

interface PendingCommand {
  readonly text: string;
  readonly endsAt: RegExp | undefined;
  readonly resolve: (text: string) => void;
  readonly reject: (error: RconError) => void;
  readonly timeoutMs: number;
  timer: NodeJS.Timeout | undefined;
  quietTimer: NodeJS.Timeout | undefined;
  sent: boolean;
  readonly lines: string[];
  bytes: number;
  settled: boolean;
}

/** What the queue needs of its client's session; given once. */
export interface TelnetCommandLink {
  /** The socket of a logged-in session, the one a command may be written to now; undefined while there is none. */
  readonly socket: () => Socket | undefined;
  /** A session is up (logged in or not): a timed-out command's answer may still come on it. */
  readonly hasSession: () => boolean;
  /** Ends the current session with this error (an answer passed maxReplyBytes); the client fails the rest on its close. */
  readonly drop: (error: RconError) => void;
}

export interface TelnetCommandQueueOptions {
  readonly label: string;
  readonly quietMs: number;
  readonly maxQueued: number;
  readonly maxReplyBytes: number;
  readonly repeatSummaryIntervalMs: number | undefined;
  readonly clock: Clock | undefined;
  readonly logger: RconLogger;
}

export class TelnetCommandQueue {
  readonly #label: string;
  readonly #quietMs: number;
  readonly #maxQueued: number;
  readonly #maxReplyBytes: number;
  readonly #logger: RconLogger;
  readonly #link: TelnetCommandLink;
  readonly #strays: RepeatSummary<StrayKind>;
  readonly #queue: PendingCommand[] = [];
  #inFlight: PendingCommand | undefined;
  /** After a sent command timed out: answer lines still arriving are its, not the next command's. */
  #drainTimer: NodeJS.Timeout | undefined;

  constructor(options: TelnetCommandQueueOptions, link: TelnetCommandLink) {
    this.#label = options.label;
    this.#quietMs = options.quietMs;
    this.#maxQueued = options.maxQueued;
    this.#maxReplyBytes = options.maxReplyBytes;
    this.#logger = options.logger;
    this.#link = link;
    this.#strays = new RepeatSummary<StrayKind>({
      intervalMs: options.repeatSummaryIntervalMs,
      clock: options.clock,
      onSummary: (report) => {
        this.#summarizeStrays(report);
      },
    });
  }

  /** Commands queued or waiting for their answer. */
  get pending(): number {
    return this.#queue.length + (this.#inFlight === undefined ? 0 : 1);
  }

  /**
   * Queues one command (the client has checked the session and the text) with its timeout, counted from now; fails at
   * once with queue_full past maxQueuedCommands.
   */
  add(text: string, endsAt: RegExp | undefined, timeoutMs: number): Promise<string> {
    if (this.#queue.length >= this.#maxQueued) {
      return Promise.reject(new RconQueueFullError(`${this.#queue.length} telnet commands already wait for their turn on ${this.#label}: this one was not sent`));
    }
    return new Promise<string>((resolve, reject) => {
      const pending: PendingCommand = {
        text,
        endsAt,
        resolve,
        reject,
        timeoutMs,
        timer: undefined,
        quietTimer: undefined,
        sent: false,
        lines: [],
        bytes: 0,
        settled: false,
      };
      pending.timer = setTimeout(() => {
        this.#timeOut(pending);
      }, clampTimerMs(timeoutMs));
      this.#queue.push(pending);
      this.pump();
    });
  }

  /** Sends the next queued command, if the session can take one and no answer is awaited or draining. */
  pump(): void {
    if (this.#inFlight !== undefined || this.#drainTimer !== undefined) return;
    const socket = this.#link.socket();
    if (socket === undefined) return;
    const pending = this.#queue.shift();
    if (pending === undefined) return;
    this.#inFlight = pending;
    pending.sent = true;
    socket.write(`${pending.text}\r\n`);
    if (pending.endsAt === undefined) this.#armQuiet(pending);
  }

  /** A log line of a logged-in session: the console's echo of the command proves it runs, so its quiet time starts again. */
  logLine(line: string): void {
    const pending = this.#inFlight;
    if (pending !== undefined && pending.endsAt === undefined && line.includes(`Executing command '${pending.text}'`)) this.#armQuiet(pending);
  }

  /** A line of a logged-in session that is not a log line: the answer of the command in flight, or a stray. */
  answerLine(line: string): void {
    const pending = this.#inFlight;
    if (pending === undefined) {
      if (this.#drainTimer !== undefined) {
        this.#armDrain();
        if (this.#strays.first('late_line')) this.#logger.debug({ bytes: line.length }, `telnet ${this.#label}: a late answer line of a command that timed out, dropped`);
        return;
      }
      // The banner's blank tail and answers no command waits for.
      if (line.trim().length === 0) return;
      if (this.#strays.first('unowned_line')) {
        this.#logger.debug({ bytes: line.length }, `telnet ${this.#label}: a console line no command waits for, dropped (repeats are summed up every ${formatMs(this.#strays.intervalMs)})`);
      }
      return;
    }
    // Blank lines before an answer are the banner's tail or the console's spacing, not the answer.
    if (pending.lines.length === 0 && line.trim().length === 0) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (pending.bytes + bytes > this.#maxReplyBytes) {
      const error = new RconReplyTooLargeError(
        `the telnet console of ${this.#label} sent more than ${formatBytes(this.#maxReplyBytes)} (maxReplyBytes) for one command's answer: the answer was cut and the connection is dropped; it is made again with the normal backoff`,
      );
      this.#forget(pending);
      pending.reject(error);
      this.#link.drop(error);
      return;
    }
    pending.lines.push(line);
    pending.bytes += bytes;
    if (pending.endsAt !== undefined) {
      pending.endsAt.lastIndex = 0;
      if (pending.endsAt.test(line)) this.#finish(pending);
      return;
    }
    this.#armQuiet(pending);
  }

  /** The session ended: no late answer can come any more. */
  sessionEnded(): void {
    clearTimeout(this.#drainTimer);
    this.#drainTimer = undefined;
  }

  /** Fails the command in flight and every queued one, each with the error for whether it was sent. */
  failAll(errorFor: (sent: boolean) => RconError): void {
    const all = this.#inFlight === undefined ? [...this.#queue] : [this.#inFlight, ...this.#queue];
    for (const pending of all) {
      this.#forget(pending);
      pending.reject(errorFor(pending.sent));
    }
  }

  /** The client closed (after failAll): the drain stops, and what the stray log counted is told. */
  close(): void {
    this.sessionEnded();
    this.#strays.close();
  }

  #armQuiet(pending: PendingCommand): void {
    clearTimeout(pending.quietTimer);
    pending.quietTimer = setTimeout(() => {
      pending.quietTimer = undefined;
      this.#finish(pending);
    }, this.#quietMs);
  }

  #armDrain(): void {
    clearTimeout(this.#drainTimer);
    this.#drainTimer = setTimeout(() => {
      this.#drainTimer = undefined;
      this.pump();
    }, this.#quietMs);
  }

  #finish(pending: PendingCommand): void {
    if (pending.settled) return;
    this.#forget(pending);
    pending.resolve(pending.lines.join('\n'));
    this.pump();
  }

  #timeOut(pending: PendingCommand): void {
    if (pending.settled) return;
    const sent = pending.sent;
    this.#forget(pending);
    pending.reject(
      new RconTimeoutError(
        sent
          ? `no complete answer from the telnet console of ${this.#label} within ${formatMs(pending.timeoutMs)}; the command may have run`
          : `the command waited ${formatMs(pending.timeoutMs)} for its turn on ${this.#label} and was not sent`,
      ),
    );
    // Its answer may still come: the next command waits until the console has been quiet.
    if (sent && this.#link.hasSession()) this.#armDrain();
    else this.pump();
  }

  /** Takes a command out of the queue or the flight, stops its timers, marks it settled. */
  #forget(pending: PendingCommand): void {
    pending.settled = true;
    clearTimeout(pending.timer);
    clearTimeout(pending.quietTimer);
    if (this.#inFlight === pending) this.#inFlight = undefined;
    const queued = this.#queue.indexOf(pending);
    if (queued >= 0) this.#queue.splice(queued, 1);
  }

  #summarizeStrays(report: RepeatSummaryReport<StrayKind>): void {
    const what = report.kind === 'late_line' ? 'late answer lines of commands that timed out' : 'console lines no command waited for';
    this.#logger.debug({ kind: report.kind, repeats: report.repeats, sinceMs: report.sinceMs }, `telnet ${this.#label}: ${report.repeats} more ${what} dropped in the last ${formatMs(report.sinceMs)}`);
  }
}
