// The game server of bench/rcon-throughput, in its own process so that it does not share the measured thread: a
// minimal Source RCON server speaking real bytes with SRCDS's quirks (reference/game-rcon.md), on two loopback
// ports. The test fixture test/fixtures/fakeSourceRconServer.ts has more quirks, but the bench build (src,
// adapters, bench) must not pull test/ into dist/, which the package would then ship; this keeps only what the
// bench needs:
// - login: an empty RESPONSE_VALUE first, then the AUTH_RESPONSE with the login's id, or with id -1 for a wrong
//   password (a client that takes the first packet as the answer thinks it is in);
// - `long <bytes>` answers that many bytes split into packets of 4096 body bytes; `reset` resets the connection
//   (a TCP RST, as a server that crashes or restarts); any other command answers `reply to <command>`;
// - an empty RESPONSE_VALUE is mirrored, then followed by a packet with body 00 01 00 00 (the end-of-reply trick);
// - the `whole` port writes each packet in one write; the `split` port cuts every write into 1–7 byte pieces, so
//   the client reads packets split over many TCP reads.
// Never used by the product.
//
//   node dist/bench/sourceRconBenchServer.js <password>      (prints "listening whole=<port> split=<port>")

import { createServer, type Server, type Socket } from 'node:net';
import { SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from '../adapters/rcon/sourceRconCodec.js';
import { onSourceRconPackets } from './sourceRconPackets.js';

const PACKET_BODY_BYTES = 4096;
const MIRROR_TRAILER = Buffer.from([0x00, 0x01, 0x00, 0x00]);

type WriteMode = 'whole' | 'split';

function serve(password: string, mode: WriteMode): Server {
  // A fixed-seed generator for the split sizes: the same pieces on every run.
  let state = 0x2545f491;
  const nextPiece = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return 1 + ((state >>> 16) % 7);
  };
  const write = (socket: Socket, packets: readonly Buffer[]): void => {
    if (socket.destroyed) return;
    if (mode === 'whole') {
      for (const packet of packets) socket.write(packet);
      return;
    }
    const bytes = Buffer.concat(packets);
    for (let offset = 0; offset < bytes.length; ) {
      const length = nextPiece();
      socket.write(bytes.subarray(offset, offset + length));
      offset += length;
    }
  };
  return createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {
      // A client reset is part of the game.
    });
    let loggedIn = false;
    const onPacket = (packet: SourceRconPacket): void => {
      if (packet.type === SourceRconPacketType.AUTH) {
        loggedIn = packet.body.toString('utf8') === password;
        write(socket, [
          encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''),
          encodeSourceRconPacket(loggedIn ? packet.id : -1, SourceRconPacketType.AUTH_RESPONSE, ''),
        ]);
        return;
      }
      if (!loggedIn) return;
      if (packet.type === SourceRconPacketType.RESPONSE_VALUE) {
        write(socket, [
          encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''),
          encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, MIRROR_TRAILER),
        ]);
        return;
      }
      if (packet.type !== SourceRconPacketType.EXECCOMMAND) return;
      const command = packet.body.toString('utf8');
      if (command === 'reset') {
        socket.resetAndDestroy();
        return;
      }
      const long = /^long (\d+)$/.exec(command);
      const body = long === null ? Buffer.from(`reply to ${command}`, 'utf8') : Buffer.alloc(Number(long[1]), 'x');
      const parts: Buffer[] = [];
      for (let offset = 0; offset < body.length || parts.length === 0; offset += PACKET_BODY_BYTES) {
        parts.push(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, body.subarray(offset, offset + PACKET_BODY_BYTES)));
      }
      write(socket, parts);
    };
    onSourceRconPackets(socket, onPacket);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

const password = process.argv[2] ?? 'bench-password';
const servers = [serve(password, 'whole'), serve(password, 'split')];
const [wholePort, splitPort] = await Promise.all(servers.map(listen));
process.stdout.write(`listening whole=${String(wholePort)} split=${String(splitPort)}\n`);
process.once('SIGTERM', () => {
  for (const server of servers) server.close();
  process.exit(0);
});
