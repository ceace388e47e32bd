// The Source RCON framing: every way TCP can cut or join the stream gives the same packets; sizes from 10 up
// to the cap are accepted (above 4096 too), anything else is a protocol error; bodies stay bytes, so a UTF-8
// character split between packets or reads comes out whole once a reply's bodies are joined.
import { describe, expect, it } from 'vitest';
import { RconProtocolError } from '../../adapters/rcon/errors.js';
import {
  DEFAULT_MAX_PACKET_SIZE,
  SQUAD_MIRROR_JUNK,
  SourceRconDecoder,
  SourceRconPacketType,
  encodeSourceRconPacket,
  type SourceRconPacket,
} from '../../adapters/rcon/sourceRconCodec.js';

function simple(packets: readonly SourceRconPacket[]): { id: number; type: number; body: string }[] {
  return packets.map((packet) => ({ id: packet.id, type: packet.type, body: packet.body.toString('hex') }));
}

const SAMPLE = [
  encodeSourceRconPacket(7, SourceRconPacketType.EXECCOMMAND, 'ListPlayers'),
  encodeSourceRconPacket(8, SourceRconPacketType.RESPONSE_VALUE, ''),
  encodeSourceRconPacket(-1, SourceRconPacketType.AUTH_RESPONSE, ''),
  encodeSourceRconPacket(2_147_483_647, 1, 'Zoë (Ünïcødé): 日本語 🎮'),
  encodeSourceRconPacket(9, SourceRconPacketType.RESPONSE_VALUE, Buffer.from([0x00, 0x01, 0x00, 0x00])),
];
const STREAM = Buffer.concat(SAMPLE);
const EXPECTED = simple(new SourceRconDecoder().push(STREAM));

describe('encodeSourceRconPacket', () => {
  it('writes size, id, type, body and two NULs, little-endian', () => {
    const packet = encodeSourceRconPacket(0x01020304, 3, 'pw');
    expect(packet.toString('hex')).toBe('0c000000' + '04030201' + '03000000' + '7077' + '0000');
  });

  it('makes an empty packet of size 10', () => {
    const packet = encodeSourceRconPacket(-1, 2, '');
    expect(packet.length).toBe(14);
    expect(packet.readInt32LE(0)).toBe(10);
    expect(packet.readInt32LE(4)).toBe(-1);
  });

  it('counts bytes, not characters, for a UTF-8 body', () => {
    expect(encodeSourceRconPacket(1, 2, 'ü🎮').readInt32LE(0)).toBe(10 + 2 + 4);
  });
});

describe('SourceRconDecoder', () => {
  it('decodes a stream of packets in one read', () => {
    expect(EXPECTED).toEqual([
      { id: 7, type: 2, body: Buffer.from('ListPlayers').toString('hex') },
      { id: 8, type: 0, body: '' },
      { id: -1, type: 2, body: '' },
      { id: 2_147_483_647, type: 1, body: Buffer.from('Zoë (Ünïcødé): 日本語 🎮').toString('hex') },
      { id: 9, type: 0, body: '00010000' },
    ]);
  });

  it('gives the same packets when the stream is cut in two at every byte boundary', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      const decoder = new SourceRconDecoder();
      const packets = [...decoder.push(STREAM.subarray(0, cut)), ...decoder.push(STREAM.subarray(cut))];
      expect(simple(packets), `cut at ${cut}`).toEqual(EXPECTED);
      expect(decoder.bufferedBytes).toBe(0);
    }
  });

  it('gives the same packets read one byte at a time, and only once each packet is whole', () => {
    const decoder = new SourceRconDecoder();
    const packets: SourceRconPacket[] = [];
    let end = 0;
    for (const [index, packet] of SAMPLE.entries()) {
      for (let offset = 0; offset < packet.length; offset++) {
        const got = decoder.push(STREAM.subarray(end + offset, end + offset + 1));
        // Complete exactly on the packet's last byte.
        expect(got.length, `packet ${index} byte ${offset}`).toBe(offset === packet.length - 1 ? 1 : 0);
        packets.push(...got);
      }
      end += packet.length;
    }
    expect(simple(packets)).toEqual(EXPECTED);
  });

  it('gives the same packets for random cuts (1000 streams)', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 1000; round++) {
      const decoder = new SourceRconDecoder();
      const packets: SourceRconPacket[] = [];
      for (let offset = 0; offset < STREAM.length; ) {
        const length = Math.floor(random() * 40);
        packets.push(...decoder.push(STREAM.subarray(offset, offset + length)));
        offset += length;
      }
      expect(simple(packets)).toEqual(EXPECTED);
    }
  });

  it('accepts sizes above 4096 (a Fabric server sent 4106) up to the cap, and a 1 MiB packet read in 1 KiB pieces', () => {
    const body4106 = Buffer.alloc(4106 - 10, 0x61);
    expect(new SourceRconDecoder().push(encodeSourceRconPacket(1, 0, body4106))[0]?.body.length).toBe(4096);
    const big = Buffer.alloc(DEFAULT_MAX_PACKET_SIZE - 10, 0x62);
    const stream = encodeSourceRconPacket(2, 0, big);
    const decoder = new SourceRconDecoder();
    const packets: SourceRconPacket[] = [];
    for (let offset = 0; offset < stream.length; offset += 1024) packets.push(...decoder.push(stream.subarray(offset, offset + 1024)));
    expect(packets).toHaveLength(1);
    expect(packets[0]?.body.equals(big)).toBe(true);
  });

  it('rejects a size above the cap as soon as the size field is read, without waiting for the body', () => {
    const decoder = new SourceRconDecoder({ maxPacketSize: 8192 });
    const header = Buffer.alloc(4);
    header.writeInt32LE(8193);
    expect(() => decoder.push(header)).toThrow(RconProtocolError);
    expect(() => decoder.push(header)).toThrow(/above the cap of 8192/);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it.each([9, 0, -1, -2_147_483_648])('rejects size %i (below the minimum of 10) with code protocol', (size) => {
    const bytes = Buffer.alloc(16);
    bytes.writeInt32LE(size);
    let caught: unknown;
    try {
      new SourceRconDecoder().push(bytes);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RconProtocolError);
    expect(caught).toMatchObject({ code: 'protocol' });
  });

  it('keeps a UTF-8 character split across two packets intact once the bodies are joined', () => {
    const text = 'Zoë 日本 🎮 end';
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const stream = Buffer.concat([
        encodeSourceRconPacket(5, 0, bytes.subarray(0, cut)),
        encodeSourceRconPacket(5, 0, bytes.subarray(cut)),
      ]);
      // …and each packet read in 3-byte pieces, so the cut also falls inside reads.
      const decoder = new SourceRconDecoder();
      const packets: SourceRconPacket[] = [];
      for (let offset = 0; offset < stream.length; offset += 3) packets.push(...decoder.push(stream.subarray(offset, offset + 3)));
      expect(Buffer.concat(packets.map((packet) => packet.body)).toString('utf8'), `cut at byte ${cut}`).toBe(text);
    }
  });

  it('copies bodies out of the read buffer', () => {
    const stream = encodeSourceRconPacket(1, 0, 'abc');
    const [packet] = new SourceRconDecoder().push(stream);
    stream.fill(0);
    expect(packet?.body.toString()).toBe('abc');
  });

  describe('Squad\'s mirror answer (the empty packet twice, then 00 01 00 00 00 00 00)', () => {
    const mirror = encodeSourceRconPacket(12, 0, '');
    const after = encodeSourceRconPacket(13, 0, 'next reply');
    const squadStream = Buffer.concat([mirror, mirror, SQUAD_MIRROR_JUNK, after]);

    it('skips the seven junk bytes after an empty packet, at every cut of the stream', () => {
      for (let cut = 0; cut <= squadStream.length; cut++) {
        const decoder = new SourceRconDecoder();
        const packets = [...decoder.push(squadStream.subarray(0, cut)), ...decoder.push(squadStream.subarray(cut))];
        expect(simple(packets), `cut at ${cut}`).toEqual([
          { id: 12, type: 0, body: '' },
          { id: 12, type: 0, body: '' },
          { id: 13, type: 0, body: Buffer.from('next reply').toString('hex') },
        ]);
        expect(decoder.skippedSquadJunk).toBe(1);
        expect(decoder.bufferedBytes).toBe(0);
      }
    });

    it('skips it read one byte at a time', () => {
      const decoder = new SourceRconDecoder();
      const packets: SourceRconPacket[] = [];
      for (const byte of squadStream) packets.push(...decoder.push(Buffer.from([byte])));
      expect(packets.map((packet) => packet.id)).toEqual([12, 12, 13]);
    });

    it('leaves a real size-256 packet after an empty one alone (its id is not a multiple of 2^24)', () => {
      const real = encodeSourceRconPacket(5, 0, Buffer.alloc(246, 0x41));
      expect(real.subarray(0, 4).toString('hex')).toBe('00010000');
      const packets = new SourceRconDecoder().push(Buffer.concat([mirror, real]));
      expect(packets.map((packet) => [packet.id, packet.body.length])).toEqual([[12, 0], [5, 246]]);
    });

    it('does not skip anything when turned off', () => {
      const decoder = new SourceRconDecoder({ skipSquadMirrorJunk: false });
      expect(decoder.push(Buffer.concat([mirror, SQUAD_MIRROR_JUNK])).map((packet) => packet.id)).toEqual([12]);
      expect(decoder.bufferedBytes).toBe(7);
    });
  });
});
