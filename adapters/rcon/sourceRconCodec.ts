// Source RCON (Valve) framing: encodes one packet, and decodes a TCP byte stream into packets whatever the reads
// look like (a packet split over many reads, several packets in one read).
// Packet: int32 LE size | int32 LE id | int32 LE type | body | 0x00 | 0x00, where size counts the bytes after itself.
// Must never decode a body as text (a reply's packets are joined first, since a UTF-8 character may straddle two),
// never reject a size above 4096 (a Fabric server sent 4106) and never buffer without bound: a size above the cap
// is a protocol error, and the connection that sent it is dropped by the caller.
import { RconProtocolError } from './errors.js';

/** Packet types. AUTH_RESPONSE and EXECCOMMAND share the value 2; the direction tells them apart. */
export const SourceRconPacketType = {
  RESPONSE_VALUE: 0,
  EXECCOMMAND: 2,
  AUTH_RESPONSE: 2,
  AUTH: 3,
} as const;

/** id + type + two terminating NULs: the smallest legal value of the size field. */
export const MIN_PACKET_SIZE = 10;
/** The default cap on the size field: far above what a game sends in one packet, small enough not to hurt. */
export const DEFAULT_MAX_PACKET_SIZE = 1024 * 1024;

export interface SourceRconPacket {
  readonly id: number;
  readonly type: number;
  /** The body's bytes, without the two terminating NULs; decode only after joining a reply's packets. */
  readonly body: Buffer;
}

/** One packet as the bytes of one socket write. `body` as a string is encoded as UTF-8. */
export function encodeSourceRconPacket(id: number, type: number, body: string | Uint8Array = ''): Buffer {
  const bodyBytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const size = MIN_PACKET_SIZE + bodyBytes.length;
  const packet = Buffer.alloc(4 + size);
  packet.writeInt32LE(size, 0);
  packet.writeInt32LE(id, 4);
  packet.writeInt32LE(type, 8);
  packet.set(bodyBytes, 12);
  // The two NULs are already there: Buffer.alloc zero-fills.
  return packet;
}

/**
 * What Squad sends after its second copy of a mirrored empty RESPONSE_VALUE: seven bytes that are no packet (read
 * as one, `00 01 00 00` is a size of 256 and the stream would never frame again). SquadJS skips the same bytes.
 */
export const SQUAD_MIRROR_JUNK = Buffer.from([0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]);

export interface SourceRconDecoderOptions {
  /** The largest size field accepted, in bytes. @default 1048576 (1 MiB) */
  readonly maxPacketSize?: number | undefined;
  /**
   * Skip SQUAD_MIRROR_JUNK where it can only be Squad's: right after an empty packet. A real packet there would
   * need a size of 256 and an id whose low three bytes are 0, which SourceRconClient never uses. @default true
   */
  readonly skipSquadMirrorJunk?: boolean | undefined;
}

/**
 * A streaming decoder: push() every chunk the socket reads and get back the packets completed by it, in order.
 * Chunks are kept as a list and joined only when a whole packet is there, so a large packet read in small pieces
 * costs one copy, not one per read. After push() throws (bad size), the decoder is unusable: drop the connection.
 */
export class SourceRconDecoder {
  readonly #maxPacketSize: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #failed: RconProtocolError | undefined;
  readonly #skipSquadMirrorJunk: boolean;
  /** The last packet was empty: Squad's junk may follow. */
  #afterEmptyPacket = false;
  #skippedJunk = 0;

  constructor(options: SourceRconDecoderOptions = {}) {
    this.#maxPacketSize = options.maxPacketSize ?? DEFAULT_MAX_PACKET_SIZE;
    this.#skipSquadMirrorJunk = options.skipSquadMirrorJunk ?? true;
  }

  /** How many times Squad's seven junk bytes were skipped (for tests and debug logs). */
  get skippedSquadJunk(): number {
    return this.#skippedJunk;
  }

  /** Bytes received that do not make a whole packet yet. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /** @throws RconProtocolError when a size field is below 10 or above the cap. */
  push(chunk: Uint8Array): SourceRconPacket[] {
    if (this.#failed !== undefined) throw this.#failed;
    if (chunk.length > 0) {
      this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.#buffered += chunk.length;
    }
    const packets: SourceRconPacket[] = [];
    for (;;) {
      if (this.#afterEmptyPacket && this.#skipSquadMirrorJunk) {
        const seen = Math.min(this.#buffered, SQUAD_MIRROR_JUNK.length);
        if (seen === 0) break;
        const head = this.#join(seen);
        if (head.subarray(0, seen).equals(SQUAD_MIRROR_JUNK.subarray(0, seen))) {
          // Could still be the junk: decide once all seven bytes are here (a real packet is longer anyway).
          if (seen < SQUAD_MIRROR_JUNK.length) break;
          this.#take(SQUAD_MIRROR_JUNK.length);
          this.#skippedJunk += 1;
        }
        this.#afterEmptyPacket = false;
        continue;
      }
      if (this.#buffered < 4) break;
      const size = this.#peekSize();
      if (size < MIN_PACKET_SIZE || size > this.#maxPacketSize) {
        this.#failed = new RconProtocolError(
          size < MIN_PACKET_SIZE
            ? `the server sent a packet size of ${size}, below the minimum of ${MIN_PACKET_SIZE}: not Source RCON (wrong port?); dropping the connection`
            : `the server sent a packet size of ${size} bytes, above the cap of ${this.#maxPacketSize}: dropping the connection`,
        );
        this.#chunks = [];
        this.#buffered = 0;
        throw this.#failed;
      }
      if (this.#buffered < 4 + size) break;
      const bytes = this.#take(4 + size);
      this.#afterEmptyPacket = size === MIN_PACKET_SIZE;
      packets.push({
        id: bytes.readInt32LE(4),
        type: bytes.readInt32LE(8),
        // Copied out, so a kept body does not pin the (possibly large) chunk it came in.
        body: Buffer.from(bytes.subarray(12, 4 + size - 2)),
      });
    }
    return packets;
  }

  #peekSize(): number {
    const first = this.#chunks[0];
    if (first !== undefined && first.length >= 4) return first.readInt32LE(0);
    return this.#join(4).readInt32LE(0);
  }

  /** The first `length` buffered bytes, in one Buffer, without consuming them (joins the leading chunks). */
  #join(length: number): Buffer {
    const first = this.#chunks[0];
    if (first !== undefined && first.length >= length) return first;
    const joined = Buffer.concat(this.#chunks);
    this.#chunks = [joined];
    return joined;
  }

  #take(length: number): Buffer {
    const joined = this.#join(length);
    const taken = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.#chunks = rest.length > 0 ? [rest, ...this.#chunks.slice(1)] : this.#chunks.slice(1);
    this.#buffered -= length;
    return taken;
  }
}
