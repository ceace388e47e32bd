// The waiting first mute lookups, kept per chat source and served in turn: one queue per source (an opaque key the
// caller chooses and this module never interprets), and a ring of the sources that have lookups waiting.
// Each turn takes the newest lookup of the source at the head of the ring and puts that source at the back, so with
// S sources waiting a source is served within S turns, whatever the others' volume; inside one source the newest
// lookup goes first (the player chatting now). A source holds at most `maxPerSource`: past that its own oldest
// lookup gives way, never another source's.
// Every operation is O(1), except choosing who gives way to the total bound (O(sources)). It never refuses, starts
// or times anything: the rate limiter decides what a displaced lookup becomes. Nothing here knows what a source is.

import { RingDeque } from './ringDeque.js';

/** One source's waiting lookups. `inTurn`: it is in the ring (at most once). */
interface SourceQueue<T> {
  readonly key: string;
  readonly items: RingDeque<T>;
  inTurn: boolean;
}

export class SourceTurns<T> {
  readonly #maxPerSource: number;
  /** Every source that is in the ring, by key. A source leaves both when the ring finds it empty. */
  readonly #sources = new Map<string, SourceQueue<T>>();
  /** Sources with lookups waiting, in the order of their next turn. */
  readonly #ring = new RingDeque<SourceQueue<T>>();
  #size = 0;

  /** `maxPerSource`: a whole number of 1 or more, or Infinity. */
  constructor(maxPerSource: number) {
    this.#maxPerSource = maxPerSource;
  }

  /** Lookups waiting, all sources together. */
  get size(): number {
    return this.#size;
  }

  /** Lookups waiting from one source. */
  sizeOf(source: string): number {
    return this.#sources.get(source)?.items.size ?? 0;
  }

  /**
   * Adds a lookup at the newest end of its source's queue. A source new to the ring goes to its back: the sources
   * already waiting have their turn first. Returns the source's own oldest lookup when the source was at its bound
   * (it has given way and is no longer held), else undefined.
   */
  push(source: string, item: T): T | undefined {
    let queue = this.#sources.get(source);
    if (queue === undefined) {
      queue = { key: source, items: new RingDeque<T>(4), inTurn: false };
      this.#sources.set(source, queue);
    }
    let displaced: T | undefined;
    if (queue.items.size >= this.#maxPerSource) {
      displaced = queue.items.shift();
      this.#size -= 1;
    }
    queue.items.push(item);
    this.#size += 1;
    if (!queue.inTurn) {
      queue.inTurn = true;
      this.#ring.push(queue);
    }
    return displaced;
  }

  /** The newest lookup of the source whose turn it is; that source goes to the back of the ring. */
  next(): T | undefined {
    // A source emptied by dropOldestOfLongest() is still in the ring: it is passed over (and forgotten) here, at
    // most once per source, so this stays O(1) amortized.
    for (let queue = this.#ring.shift(); queue !== undefined; queue = this.#ring.shift()) {
      const item = queue.items.pop();
      if (item === undefined) {
        this.#forget(queue);
        continue;
      }
      this.#size -= 1;
      if (queue.items.size > 0) this.#ring.push(queue);
      else this.#forget(queue);
      return item;
    }
    return undefined;
  }

  /**
   * Removes and returns the oldest lookup of the source with the most waiting (the first such in turn order): the
   * total bound is met by whoever holds the most, so a quiet source never gives way to a busy one.
   */
  dropOldestOfLongest(): T | undefined {
    let longest: SourceQueue<T> | undefined;
    for (const queue of this.#sources.values()) if (longest === undefined || queue.items.size > longest.items.size) longest = queue;
    const item = longest?.items.shift();
    if (item !== undefined) this.#size -= 1;
    return item;
  }

  /** Removes and returns every waiting lookup (for close()), sources in turn order. */
  drain(): T[] {
    const all: T[] = [];
    for (let queue = this.#ring.shift(); queue !== undefined; queue = this.#ring.shift()) {
      for (let item = queue.items.shift(); item !== undefined; item = queue.items.shift()) all.push(item);
      this.#forget(queue);
    }
    this.#size = 0;
    return all;
  }

  #forget(queue: SourceQueue<T>): void {
    queue.inTurn = false;
    this.#sources.delete(queue.key);
  }
}
