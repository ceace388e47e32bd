// Reads the Source RCON packets a client sends to one of the bench's game servers (bench/sourceRconBenchServer.ts,
// bench/soak/hostileGameServer.ts): decodes every TCP read, split or merged, and hands each packet over in order.
// A stream that cannot be framed is not a client of ours: the socket is destroyed. Never used by the product.
import type { Socket } from 'node:net';
import { SourceRconDecoder, type SourceRconPacket } from '../adapters/rcon/sourceRconCodec.js';

export function onSourceRconPackets(socket: Socket, onPacket: (packet: SourceRconPacket) => void): void {
  // A server never skips Squad's mirror junk: clients do not send it.
  const decoder = new SourceRconDecoder({ skipSquadMirrorJunk: false });
  socket.on('data', (chunk: Buffer) => {
    let packets: SourceRconPacket[];
    try {
      packets = decoder.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const packet of packets) onPacket(packet);
  });
}
