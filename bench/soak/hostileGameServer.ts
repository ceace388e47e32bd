// The hostile game servers of the soak, in their own process so their write loops do not share the soak's measuring
// thread: two Squad-like Source RCON listeners on loopback, speaking real bytes (login, ListPlayers, Squad's
// mirror answer), each hostile in its own way:
// - `flood`: pushes chat (packets of type 1, as Squad does) from a new distinct speaker on every line, at a fixed
//   rate, to every logged-in session: the chat source that would use up the mute share;
// - `endless`: answers every command other than the login with reply packets for that command's id that never end
//   (the mirror is never answered), paced, the broken or hostile server that would grow the sidecar's memory.
// Like bench/sourceRconBenchServer.ts it must not import test/ (the bench build would pull it into dist/). The
// password comes from the environment (SOAK_RCON_PASSWORD), never from argv, where `ps` would show it.
//
//   SOAK_RCON_PASSWORD=… node dist/bench/soak/hostileGameServer.js <flood lines per second> <endless KiB per second>
//   prints one line: "listening flood=<port> endless=<port>"; then every second a line "stats {json}".

import { createServer, type Server, type Socket } from 'node:net';
import { SourceRconPacketType, SQUAD_MIRROR_JUNK, encodeSourceRconPacket, type SourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { onSourceRconPackets } from '../sourceRconPackets.js';

const TICK_MS = 20;
/** The packet type Squad pushes chat with (not a reply to anything). */
const SQUAD_PUSH_TYPE = 1;
const ENDLESS_PACKET_BYTES = 4096;
/** A socket with more than this waiting to be written is a client that stopped reading: skip it this tick. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

interface Session {
  readonly socket: Socket;
  loggedIn: boolean;
  /** The command id the endless reply is for, once a command came. */
  endlessId: number | undefined;
}

const stats = { floodLines: 0, endlessBytes: 0, logins: 0, refusedLogins: 0, sessions: 0 };

/** A distinct, valid Steam64 id and EOS id per line: no speaker repeats, so every line is a first lookup. */
function floodLine(n: number): string {
  const steam = `765611970${String(n % 1e8).padStart(8, '0')}`;
  const eos = (n % 2 ** 48).toString(16).padStart(32, '0');
  return `[ChatAll] [Online IDs:EOS: ${eos} steam: ${steam}] flooder${n} : buy gold at example dot com ${n}`;
}

const LIST_PLAYERS = '----- Active Players -----\n----- Recently Disconnected Players [Max of 15] -----\n';

function serve(password: string, sessions: Set<Session>, onCommand: (session: Session, packet: SourceRconPacket) => void): Server {
  return createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {
      // The sidecar cutting the connection (a cap reached) is expected.
    });
    const session: Session = { socket, loggedIn: false, endlessId: undefined };
    sessions.add(session);
    stats.sessions += 1;
    socket.on('close', () => sessions.delete(session));
    onSourceRconPackets(socket, (packet) => {
      if (packet.type === SourceRconPacketType.AUTH) {
        session.loggedIn = packet.body.toString('utf8') === password;
        if (session.loggedIn) stats.logins += 1;
        else stats.refusedLogins += 1;
        socket.write(
          Buffer.concat([
            encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''),
            encodeSourceRconPacket(session.loggedIn ? packet.id : -1, SourceRconPacketType.AUTH_RESPONSE, ''),
          ]),
        );
        return;
      }
      if (session.loggedIn) onCommand(session, packet);
    });
  });
}

/** Squad's answer: the reply, and for the empty packet the client sends after it, the mirror twice and the junk. */
function answerLikeSquad(session: Session, packet: SourceRconPacket): void {
  if (packet.type === SourceRconPacketType.RESPONSE_VALUE) {
    const mirror = encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, '');
    session.socket.write(Buffer.concat([mirror, mirror, SQUAD_MIRROR_JUNK]));
    return;
  }
  const command = packet.body.toString('utf8');
  session.socket.write(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, command === 'ListPlayers' ? LIST_PLAYERS : ''));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no port'));
      else resolve(address.port);
    });
  });
}

async function main(): Promise<void> {
  const password = process.env.SOAK_RCON_PASSWORD ?? '';
  const linesPerSecond = Number(process.argv[2] ?? '1000');
  const endlessBytesPerSecond = Number(process.argv[3] ?? '256') * 1024;
  if (password === '' || !(linesPerSecond >= 0) || !(endlessBytesPerSecond >= 0)) {
    process.stderr.write('usage: SOAK_RCON_PASSWORD=… hostileGameServer <flood lines/s> <endless KiB/s>\n');
    process.exitCode = 2;
    return;
  }
  const floodSessions = new Set<Session>();
  const endlessSessions = new Set<Session>();
  const flood = serve(password, floodSessions, answerLikeSquad);
  const endless = serve(password, endlessSessions, (session, packet) => {
    // The empty packet after a command is the client asking for the mirror: never answered, so the reply never ends.
    if (packet.type === SourceRconPacketType.EXECCOMMAND && session.endlessId === undefined) session.endlessId = packet.id;
  });
  const [floodPort, endlessPort] = await Promise.all([listen(flood), listen(endless)]);
  process.stdout.write(`listening flood=${floodPort} endless=${endlessPort}\n`);

  const started = performance.now();
  let lines = 0;
  let endlessSent = 0;
  const endlessPacket = (id: number): Buffer => encodeSourceRconPacket(id, SourceRconPacketType.RESPONSE_VALUE, 'x'.repeat(ENDLESS_PACKET_BYTES));
  setInterval(() => {
    const seconds = (performance.now() - started) / 1000;
    const due = Math.floor(seconds * linesPerSecond);
    const batch: Buffer[] = [];
    for (; lines < due; lines += 1) batch.push(encodeSourceRconPacket(0, SQUAD_PUSH_TYPE, floodLine(lines)));
    if (batch.length > 0) {
      const bytes = Buffer.concat(batch);
      for (const session of floodSessions) {
        if (session.loggedIn && session.socket.writableLength < MAX_BACKLOG_BYTES) {
          session.socket.write(bytes);
          stats.floodLines += batch.length;
        }
      }
    }
    const packetsDue = Math.floor((seconds * endlessBytesPerSecond) / ENDLESS_PACKET_BYTES);
    for (; endlessSent < packetsDue; endlessSent += 1) {
      for (const session of endlessSessions) {
        if (session.endlessId === undefined || session.socket.writableLength >= MAX_BACKLOG_BYTES) continue;
        session.socket.write(endlessPacket(session.endlessId));
        stats.endlessBytes += ENDLESS_PACKET_BYTES;
      }
    }
  }, TICK_MS);
  setInterval(() => {
    process.stdout.write(`stats ${JSON.stringify(stats)}\n`);
  }, 1000);
  // Ends with its parent: the soak closes stdin (or dies), and this process must not outlive it.
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
}

await main();
