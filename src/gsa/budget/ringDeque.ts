// A double-ended queue on a growable ring buffer: O(1) at both ends, for the rate limiter's waiting calls
// (mute lookups are served from the newest end and give way from the oldest end) and its window of starts.
// It never drops an item by itself: bounds are the caller's decision.

export class RingDeque<T> {
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;

  constructor(initialCapacity = 16) {
    this.#items = new Array<T | undefined>(Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.#size;
  }

  /** Adds at the newest end. */
  push(item: T): void {
    if (this.#size === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#size) % this.#items.length] = item;
    this.#size += 1;
  }

  /** The oldest item, without removing it. */
  peekOldest(): T | undefined {
    return this.#size === 0 ? undefined : this.#items[this.#head];
  }

  /** The newest item, without removing it. */
  peekNewest(): T | undefined {
    return this.#size === 0 ? undefined : this.#items[(this.#head + this.#size - 1) % this.#items.length];
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#items[this.#head];
    // Cleared so a finished call's closure can be collected.
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#size -= 1;
    return item;
  }

  /** Removes and returns the newest item. */
  pop(): T | undefined {
    if (this.#size === 0) return undefined;
    const index = (this.#head + this.#size - 1) % this.#items.length;
    const item = this.#items[index];
    this.#items[index] = undefined;
    this.#size -= 1;
    return item;
  }

  #grow(): void {
    const grown = new Array<T | undefined>(this.#items.length * 2);
    for (let index = 0; index < this.#size; index++) grown[index] = this.#items[(this.#head + index) % this.#items.length];
    this.#items = grown;
    this.#head = 0;
  }
}
