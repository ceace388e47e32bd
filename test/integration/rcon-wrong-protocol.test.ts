// A console client pointed at a port that speaks another protocol, over real loopback servers: a node:http server, a
// raw server writing an HTTP answer, a telnet prompt, a Source RCON packet or seeded random bytes, whole, split into
// small reads or merged. Each transport (Source RCON, per-command Source RCON, telnet, WebRCON) ends the attempt with
// `wrong_protocol`, says what it saw and which setting to check, at warn once across several reconnects (the repeats
// at debug) until a login works, and never prints the password. Reconnects are driven by fake time, one at a time,
// each after the attempt before it was judged (a log line), never by sleeping.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPerCommandSession } from '../../adapters/rcon/perCommandSession.js';
import { conanProfile } from '../../adapters/rcon/profiles/conan.js';
import { encodeSourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { SourceRconClient } from '../../adapters/rcon/sourceRconClient.js';
import { TelnetClient } from '../../adapters/rcon/telnetClient.js';
import { WebRconClient } from '../../adapters/rcon/webRconClient.js';
import type { RconConnection } from '../../adapters/rcon/connectionPort.js';
import type { LogLine } from '../fixtures/capturedLogLines.js';
import { FakeSourceRconServer } from '../fixtures/fakeSourceRconServer.js';
import { ForeignProtocolServer, seededBytes, type ForeignProtocolServerOptions, type ForeignWriteMode } from '../fixtures/foreignProtocolServer.js';
import { settleIo, waitForIo as waitFor } from '../fixtures/ioWaits.js';

const PASSWORD = 'wrong-port-Secret-8c1e';
const LABEL = 'game-console';
/** Reconnect delays are at most this (jitter included): advancing by it starts the next attempt. */
const MAX_RECONNECT_MS = 200;
const RECONNECTS = { reconnectMinDelayMs: 20, reconnectMaxDelayMs: MAX_RECONNECT_MS } as const;
const ATTEMPTS = 4;
const WRITE_MODES: readonly ForeignWriteMode[] = ['whole', 'split', 'merged'];
const HTTP_400 = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n400 Bad Request';
const PROMPT = 'Please enter password:\r\n';

const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: 1_000_000 });
}

async function foreign(options: ForeignProtocolServerOptions): Promise<ForeignProtocolServer> {
  const server = await ForeignProtocolServer.start(options);
  stops.push(() => server.stop());
  return server;
}

/** A real node:http server: a Source RCON login gets its 400, a WebSocket upgrade its page. */
async function httpServer(status = 200): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(status, { 'content-type': 'text/html' }).end('<html><body>Web dashboard</body></html>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stops.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, requests: () => requests };
}

const LEVELS: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A real pino logger (as `run` hands the clients), its JSON lines read back as level, fields and message. */
function captureLogger(lines: LogLine[]): pino.Logger {
  return pino(
    { level: 'debug', base: null, timestamp: false },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split('\n')) {
          if (text === '') continue;
          const { level, msg, ...bindings } = JSON.parse(text) as { level: number; msg: string } & Record<string, unknown>;
          lines.push({ level: LEVELS[level] ?? String(level), bindings, message: msg });
        }
        done();
      },
    }),
  );
}

function sourceClient(port: number, lines: LogLine[]): SourceRconClient {
  const client = new SourceRconClient({ host: '127.0.0.1', port, password: PASSWORD, label: LABEL, logger: captureLogger(lines), ...RECONNECTS });
  stops.push(() => client.close());
  client.start();
  return client;
}

function telnetClient(port: number, lines: LogLine[], loginTimeoutMs?: number): TelnetClient {
  const client = new TelnetClient({ host: '127.0.0.1', port, password: PASSWORD, label: LABEL, logger: captureLogger(lines), loginTimeoutMs, ...RECONNECTS });
  stops.push(() => client.close());
  client.start();
  return client;
}

function webRconClient(port: number, lines: LogLine[]): WebRconClient {
  const client = new WebRconClient({ host: '127.0.0.1', port, password: PASSWORD, label: LABEL, logger: captureLogger(lines), ...RECONNECTS });
  stops.push(() => client.close());
  client.start();
  return client;
}

/** The lines that judge an attempt (the lifecycle's "next attempt" lines carry the code too, but not these words). */
function verdicts(lines: readonly LogLine[]): LogLine[] {
  return lines.filter((line) => line.bindings.code === 'wrong_protocol' && line.message.includes(' answered with '));
}

/** Lets `attempts` attempts run, each started by fake time once the one before it was judged. */
async function driveAttempts(lines: readonly LogLine[], attempts: number, judged = attempts): Promise<void> {
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    await waitFor(() => verdicts(lines).length >= attempt * (judged / attempts), `attempt ${attempt} judged`);
    if (attempt < attempts) await vi.advanceTimersByTimeAsync(MAX_RECONNECT_MS);
  }
}

/** Said at warn exactly once, the repeats at debug; the password in no line. */
function expectSaidOnce(lines: readonly LogLine[], attempts: number): LogLine {
  const said = verdicts(lines);
  const warned = said.filter((line) => line.level === 'warn');
  expect(warned).toHaveLength(1);
  expect(said.filter((line) => line.level === 'debug').length).toBeGreaterThanOrEqual(attempts - 1);
  expect(said.every((line) => line.level === 'warn' || line.level === 'debug')).toBe(true);
  // Nothing else about the attempts at warn or info: a wrong port costs one line until something changes.
  expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual(warned);
  for (const line of lines) expect(`${line.message} ${JSON.stringify(line.bindings)}`).not.toContain(PASSWORD);
  const [line] = warned;
  if (line === undefined) throw new Error('no warning');
  return line;
}

describe('Source RCON on a port that speaks another protocol', () => {
  it.each(WRITE_MODES)('an HTTP answer (%s writes): one warning naming HTTP and RCONPort across reconnects', async (writeMode) => {
    useFakeTime();
    const server = await foreign({ answer: HTTP_400, when: 'first-read', writeMode });
    const lines: LogLine[] = [];
    sourceClient(server.port, lines);
    await driveAttempts(lines, ATTEMPTS);
    const line = expectSaidOnce(lines, ATTEMPTS);
    expect(line.message).toBe(
      `RCON ${LABEL}: the server at 127.0.0.1:${server.port} answered with text that looks like HTTP ("HTTP/1.1 400 Bad Request"), not Source RCON: is servers[].adapters[].port of adapter ${LABEL} the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port?`,
    );
    expect(server.connections).toBe(ATTEMPTS);
  });

  it('a real node:http server, a telnet prompt and random bytes: each named, once', async () => {
    useFakeTime();
    const cases = [
      { port: (await httpServer()).port, seen: 'text that looks like HTTP ("HTTP/1.1 400 Bad Request")' },
      { port: (await foreign({ answer: PROMPT, when: 'connect', writeMode: 'split', closeAfter: false })).port, seen: `a telnet password prompt (7 Days to Die's console) ("Please enter password:")` },
      { port: (await foreign({ answer: seededBytes(200), when: 'connect', writeMode: 'split' })).port, seen: 'binary data' },
    ];
    for (const { port, seen } of cases) {
      const lines: LogLine[] = [];
      const client = sourceClient(port, lines);
      await driveAttempts(lines, 3);
      expect(expectSaidOnce(lines, 3).message).toContain(`answered with ${seen}, not Source RCON: is `);
      await client.close();
    }
  });

  it('says it again after a login worked in between (the game was fixed, then the port changed again)', async () => {
    useFakeTime();
    const game = await FakeSourceRconServer.start({ quirks: 'srcds', password: PASSWORD });
    stops.push(() => game.stop());
    const port = game.port;
    await game.goDown();
    let web = await foreign({ answer: HTTP_400, when: 'first-read', port });
    const lines: LogLine[] = [];
    const client = sourceClient(port, lines);
    await driveAttempts(lines, 2);
    await web.stop();
    await game.comeUp();
    await vi.advanceTimersByTimeAsync(MAX_RECONNECT_MS);
    await waitFor(() => client.ready, 'logged in to the game');
    await game.goDown();
    web = await foreign({ answer: HTTP_400, when: 'first-read', port });
    await waitFor(() => lines.some((line) => line.bindings.code !== 'wrong_protocol' && line.message.includes('next connection attempt')), 'the drop noticed');
    await vi.advanceTimersByTimeAsync(MAX_RECONNECT_MS);
    await waitFor(() => verdicts(lines).length === 3, 'the wrong port judged again');
    expect(verdicts(lines).map((line) => line.level)).toEqual(['warn', 'debug', 'warn']);
  });
});

describe('per-command Source RCON (Conan) on a port that speaks another protocol', () => {
  it('warns once across its probes, then only at debug; nothing else at warn', async () => {
    useFakeTime();
    const web = await foreign({ answer: HTTP_400, when: 'first-read' });
    const lines: LogLine[] = [];
    const options = { type: 'rcon', profile: 'conan', host: '127.0.0.1', port: web.port, password: PASSWORD } as const;
    const transport = conanProfile.transport;
    if (transport.kind !== 'source-per-command') throw new Error('conan is per-command');
    const connection: RconConnection = openPerCommandSession({ options: options as never, transport, label: LABEL, logger: captureLogger(lines) }, transport);
    stops.push(() => connection.close());
    connection.start();
    const connecting = (): number => lines.filter((line) => line.message === `RCON ${LABEL}: connecting`).length;
    // Each probe is one session, judged twice (the session's own debug line and the connection's). Fake time moves,
    // in small steps, only while no session is under way: the probe's backoff and Conan's pace pass, a session's
    // connect and login timers never do.
    for (let probe = 1; probe <= 3; probe += 1) {
      while (connecting() < probe) {
        await vi.advanceTimersByTimeAsync(250);
        await settleIo();
      }
      await waitFor(() => verdicts(lines).length === 2 * probe, `probe ${probe} judged`);
    }
    const line = expectSaidOnce(lines, 3);
    expect(line.message).toBe(
      `RCON ${LABEL}: the server at 127.0.0.1:${web.port} answered with text that looks like HTTP ("HTTP/1.1 400 Bad Request"), not Source RCON: is "port" of adapter ${LABEL} the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port?`,
    );
    expect([web.connections, connection.ready]).toEqual([3, false]);
  });
});

describe('telnet (7 Days to Die) on a port that speaks another protocol', () => {
  it.each(WRITE_MODES)('a Source RCON packet where the prompt belongs (%s writes): one warning naming TelnetPort', async (writeMode) => {
    useFakeTime();
    const server = await foreign({ answer: encodeSourceRconPacket(0, 2, ''), when: 'connect', writeMode, closeAfter: false });
    const lines: LogLine[] = [];
    telnetClient(server.port, lines);
    await driveAttempts(lines, ATTEMPTS);
    expect(expectSaidOnce(lines, ATTEMPTS).message).toBe(
      `telnet ${LABEL}: the server at 127.0.0.1:${server.port} answered with bytes that look like a Source RCON packet, not a 7 Days to Die telnet console: is "port" of adapter ${LABEL} the telnet port (TelnetPort in serverconfig.xml, 8081 by default), not the game or web dashboard port?`,
    );
    // Nothing was written to it: the password goes only after a prompt.
    expect(server.received.every((bytes) => bytes.length === 0)).toBe(true);
  });

  it('random bytes and an HTTP answer are judged at once; other text once the login times out', async () => {
    useFakeTime();
    const binary = await foreign({ answer: seededBytes(100), when: 'connect', writeMode: 'split', closeAfter: false });
    const http = await foreign({ answer: HTTP_400, when: 'connect', writeMode: 'split', closeAfter: false });
    for (const [port, seen] of [[binary.port, 'binary data'], [http.port, 'text that looks like HTTP ("HTTP/1.1 400 Bad Request")']] as const) {
      const lines: LogLine[] = [];
      const client = telnetClient(port, lines);
      await driveAttempts(lines, 3);
      expect(expectSaidOnce(lines, 3).message).toContain(`answered with ${seen}, not a 7 Days to Die telnet console`);
      await client.close();
    }
    const ftp = await foreign({ answer: '220 ProFTPD Server ready.\r\n', when: 'connect', closeAfter: false });
    const lines: LogLine[] = [];
    telnetClient(ftp.port, lines, 10_000);
    await waitFor(() => ftp.connections === 1, 'connected');
    await settleIo();
    expect(verdicts(lines)).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    await waitFor(() => verdicts(lines).length === 1, 'judged at the login timeout');
    expect(verdicts(lines)[0]?.message).toContain('answered with text ("220 ProFTPD Server ready…"), not a 7 Days to Die telnet console');
    // Not taken for a wrong password: no auth failure, so the normal backoff, not minutes.
    expect(lines.some((line) => line.bindings.code === 'auth_timeout')).toBe(false);
  });
});

describe("Rust's WebRCON on a port that speaks another protocol", () => {
  it('an HTTP page instead of the upgrade: one warning naming rcon.port across reconnects', async () => {
    useFakeTime();
    const web = await httpServer(404);
    const lines: LogLine[] = [];
    webRconClient(web.port, lines);
    await driveAttempts(lines, ATTEMPTS);
    const line = expectSaidOnce(lines, ATTEMPTS);
    // One line per failure in WebRCON's log: the verdict, then its next attempt.
    expect(line.message.startsWith(
      `the server at 127.0.0.1:${web.port} answered with an HTTP 404 page (no WebSocket upgrade), not Rust's WebRCON: is "port" of adapter ${LABEL} the WebRCON port (rcon.port, with rcon.web 1), not the game or query port?; next attempt in `,
    )).toBe(true);
    expect(web.requests()).toBe(ATTEMPTS);
  });

  it.each(WRITE_MODES)('a telnet prompt or random bytes where the HTTP answer belongs (%s writes): wrong_protocol, not a wrong password', async (writeMode) => {
    useFakeTime();
    for (const answer of [PROMPT, seededBytes(100)]) {
      const server = await foreign({ answer, when: 'connect', writeMode, closeAfter: false });
      const lines: LogLine[] = [];
      const client = webRconClient(server.port, lines);
      await driveAttempts(lines, 3);
      const line = expectSaidOnce(lines, 3);
      expect(line.message).toMatch(/answered with (text|binary data|a telnet password prompt)[^,]*, not Rust's WebRCON: is "port" of adapter game-console the WebRCON port/);
      if (writeMode !== 'split' && typeof answer === 'string') expect(line.message).toContain(`a telnet password prompt (7 Days to Die's console) ("Please enter password:")`);
      expect(lines.some((other) => other.bindings.code === 'auth_failed')).toBe(false);
      // The upgrade request carries the password in its path; whatever the server echoes, none of it is shown.
      expect(server.received[0]?.toString()).toContain(PASSWORD);
      await client.close();
    }
  });
});
