// The closing half of an assembly, after fastify/avvio's onClose: each part registers its close as soon as it has
// started, and close() unwinds them in reverse (the last part started is the first closed), one at a time. A close
// that throws is logged with the part's name and the unwinding goes on; once every part had its turn, close()
// rejects with the first failure. unwindOnFailure() runs a start-up and, when it throws, unwinds what had started
// before rethrowing the start-up's own error. close() is idempotent. A part registered while the stack unwinds is
// closed next; one registered after it has unwound is closed at once: a part never outlives its stack.
// It must never decide what the parts are or in what order they start (the assembly does, by registering), and never
// drop a failed close without logging it.

/** Where a close that failed is told (pino satisfies it). */
export interface DisposalLogger {
  error(object: object, message: string): void;
}

export interface DisposalStackOptions {
  /** Where a close that throws is logged, with its part's name (`part`) and the error (`err`). */
  readonly logger: DisposalLogger;
}

/** How a part is closed: its result is awaited when it is a promise. */
export type PartClose = () => unknown;

interface Part {
  readonly name: string;
  readonly close: PartClose;
}

type Closed = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

export class DisposalStack {
  readonly #logger: DisposalLogger;
  readonly #parts: Part[] = [];
  #unwinding: Promise<void> | undefined;
  /** Set once every part had its turn: a part registered from then on is closed at once. */
  #unwound = false;

  constructor(options: DisposalStackOptions) {
    this.#logger = options.logger;
  }

  /** True once close() was called (a part's start may check it rather than start at all). */
  get closing(): boolean {
    return this.#unwinding !== undefined;
  }

  /**
   * Registers the close of `name`, a part that has just started. Once the stack has unwound, `close` runs at once
   * instead (a failure is logged, as during the unwinding).
   */
  defer(name: string, close: PartClose): void {
    const part = { name, close };
    if (this.#unwound) {
      void this.#closeOne(part);
      return;
    }
    this.#parts.push(part);
  }

  /** Closes every part, last registered first; rejects with the first failure after all were tried. Idempotent. */
  close(): Promise<void> {
    this.#unwinding ??= this.#unwind();
    return this.#unwinding;
  }

  /**
   * Runs a start-up whose parts register here as they start. When it throws, everything registered so far is closed
   * (failed closes are logged) and the start-up's error is rethrown.
   */
  async unwindOnFailure<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  async #unwind(): Promise<void> {
    const failures: unknown[] = [];
    // Popped one at a time, not copied: a part registered meanwhile is the newest, so it is closed next.
    for (let part = this.#parts.pop(); part !== undefined; part = this.#parts.pop()) {
      const closed = await this.#closeOne(part);
      if (!closed.ok) failures.push(closed.error);
    }
    this.#unwound = true;
    if (failures.length > 0) throw failures[0];
  }

  async #closeOne(part: Part): Promise<Closed> {
    try {
      await part.close();
      return { ok: true };
    } catch (error) {
      this.#logger.error({ part: part.name, err: error }, `${part.name} did not close cleanly; closing the rest anyway`);
      return { ok: false, error };
    }
  }
}
