// wrongProtocol.ts on bytes alone: what the first bytes of a connection are called (HTTP, a telnet prompt, SSH, an
// echoed login, binary), that a sample is short, printable and never holds the password, that each gate passes its
// own protocol's first bytes however a read cuts them and judges another protocol the same way however it is cut, and
// the once-until-a-login rule of the notice.
import { describe, expect, it } from 'vitest';
import { RconDisconnectedError, RconWrongProtocolError } from '../../adapters/rcon/errors.js';
import { SourceRconPacketType, encodeSourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import {
  SourceRconFirstAnswer,
  TelnetFirstAnswer,
  WrongProtocolNotice,
  describeFirstBytes,
  isForeignHttpStatus,
  wrongProtocolError,
  type WrongProtocolContext,
} from '../../adapters/rcon/wrongProtocol.js';

const PASSWORD = 'Zq7-xW9k-Jv3';
const CONTEXT: WrongProtocolContext = { protocol: 'source-rcon', label: 'ark-main', host: '127.0.0.1', port: 7777, passwordKey: '"password"', password: PASSWORD };
const TELNET: WrongProtocolContext = { ...CONTEXT, protocol: 'telnet', label: '7dtd-main' };

/** Every way to cut `bytes` into two reads, plus one read per byte. */
function cuts(bytes: Buffer): Buffer[][] {
  const twoReads = Array.from({ length: bytes.length - 1 }, (_, at) => [bytes.subarray(0, at + 1), bytes.subarray(at + 1)]);
  return [[bytes], ...twoReads, [...bytes].map((byte) => Buffer.from([byte]))];
}

describe('describeFirstBytes', () => {
  it.each([
    ['HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n', 'text that looks like HTTP ("HTTP/1.1 400 Bad Request")'],
    ['Please enter password:\r\n', `a telnet password prompt (7 Days to Die's console) ("Please enter password:")`],
    ['*** Connected with 7DTD server.\r\n', `7 Days to Die's telnet banner ("*** Connected with 7DTD …")`],
    ['SSH-2.0-OpenSSH_9.6p1 Debian-5\r\n', 'an SSH greeting ("SSH-2.0-OpenSSH_9.6p1 De…")'],
    ['220 ProFTPD Server ready.\r\n', 'text ("220 ProFTPD Server ready…")'],
    ['  \t\u001b[1mlogin\u001b[0m ok\r\n', 'binary data'],
    ['Grüße, Welt\r\n', 'text ("Gre, Welt")'],
  ])('%j is %s', (text, expected) => {
    expect(describeFirstBytes(Buffer.from(text), PASSWORD)).toBe(expected);
  });

  it('names a Source RCON packet, and a copy of the login it was sent (an echo), without showing the body', () => {
    expect(describeFirstBytes(encodeSourceRconPacket(7, SourceRconPacketType.AUTH_RESPONSE, ''), PASSWORD)).toBe('bytes that look like a Source RCON packet');
    const echoed = describeFirstBytes(encodeSourceRconPacket(7, SourceRconPacketType.AUTH, PASSWORD), PASSWORD);
    expect(echoed).toBe('a copy of the Source RCON login it was sent (something that echoes what it receives)');
  });

  it('never shows the password: an echo has it replaced, raw or percent-encoded, and a start of it cut off at the end is dropped', () => {
    const seen = (text: string): string => describeFirstBytes(Buffer.from(text), PASSWORD);
    expect(seen(`Bad login: ${PASSWORD}\r\n`)).toBe('text ("Bad login: ***")');
    expect(describeFirstBytes(Buffer.from(`GET /${encodeURIComponent('p ss#w0rd')} HTTP/1.1\r\n`), 'p ss#w0rd')).toBe('text ("GET /*** HTTP/1.1")');
    expect(seen(`you said: ${PASSWORD.slice(0, 6)}`)).toBe('text ("you said:")');
    // Common words are not hidden: only the password itself is.
    expect(describeFirstBytes(Buffer.from('Please enter password:\r\n'), 'pass-1234')).toBe(`a telnet password prompt (7 Days to Die's console) ("Please enter password:")`);
  });

  it('is never longer than a short phrase, whatever comes', () => {
    expect(describeFirstBytes(Buffer.from(`${'A'.repeat(5000)}\r\n`), '').length).toBeLessThan(40);
    expect(describeFirstBytes(Buffer.alloc(0), PASSWORD)).toBe('nothing');
  });
});

describe('wrongProtocolError', () => {
  it('names what was seen, the port key beside the password key, and the setting of the game', () => {
    const error = wrongProtocolError({ ...CONTEXT, passwordKey: 'servers[0].adapters[1].password' }, 'binary data');
    expect(error).toBeInstanceOf(RconWrongProtocolError);
    expect(error.code).toBe('wrong_protocol');
    expect(error.message).toBe(
      "the server at 127.0.0.1:7777 answered with binary data, not Source RCON: is servers[0].adapters[1].port of adapter ark-main the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port?",
    );
    expect(wrongProtocolError(TELNET, 'x').message).toContain('is "port" of adapter 7dtd-main the telnet port (TelnetPort in serverconfig.xml');
    expect(wrongProtocolError({ ...CONTEXT, protocol: 'webrcon' }, 'x').message).toContain("not Rust's WebRCON: is \"port\" of adapter ark-main the WebRCON port (rcon.port, with rcon.web 1)");
  });
});

describe('SourceRconFirstAnswer', () => {
  it("passes SRCDS's and ARK's first answers to the decoder, byte for byte, however the reads cut them", () => {
    const srcds = Buffer.concat([encodeSourceRconPacket(1, SourceRconPacketType.RESPONSE_VALUE, ''), encodeSourceRconPacket(1, SourceRconPacketType.AUTH_RESPONSE, '')]);
    const refused = encodeSourceRconPacket(-1, SourceRconPacketType.AUTH_RESPONSE, '');
    for (const answer of [srcds, refused]) {
      for (const reads of cuts(answer)) {
        const gate = new SourceRconFirstAnswer(CONTEXT);
        const passed: Buffer[] = [];
        for (const read of reads) {
          const out = gate.push(read);
          expect(out).not.toBeInstanceOf(RconWrongProtocolError);
          if (out instanceof Buffer) passed.push(out);
        }
        expect(Buffer.concat(passed)).toEqual(answer);
        expect(gate.atEnd()).toBeUndefined();
      }
    }
  });

  it('judges an HTTP answer and a telnet prompt the same way however the reads cut them', () => {
    for (const [text, seen] of [
      ['HTTP/1.1 400 Bad Request\r\n\r\n', 'text that looks like HTTP ("HTTP/1.1 400 Bad Request")'],
      ['Please enter password:', `a telnet password prompt (7 Days to Die's console) ("Please enter password:")`],
    ] as const) {
      for (const reads of cuts(Buffer.from(text))) {
        const gate = new SourceRconFirstAnswer(CONTEXT);
        const outs = reads.map((read) => gate.push(read));
        const verdict = outs.find((out) => out instanceof RconWrongProtocolError) ?? gate.atEnd();
        expect(outs.some((out) => out instanceof Buffer)).toBe(false);
        expect(verdict?.message).toContain(`answered with ${seen}, not Source RCON`);
      }
    }
  });

  it('judges a type no login answer has (an echo of the login), binary at its header, and a few bytes then silence', () => {
    const echo = new SourceRconFirstAnswer(CONTEXT).push(encodeSourceRconPacket(5, SourceRconPacketType.AUTH, PASSWORD));
    expect(echo).toBeInstanceOf(RconWrongProtocolError);
    expect((echo as RconWrongProtocolError).message).not.toContain(PASSWORD);
    const binary = new SourceRconFirstAnswer(CONTEXT);
    expect(binary.push(Buffer.from([0xfe, 0xff, 0xff, 0xff, 1, 2, 3]))).toBeUndefined();
    expect(binary.push(Buffer.from([4, 5, 6, 7, 8]))).toBeInstanceOf(RconWrongProtocolError);
    const short = new SourceRconFirstAnswer(CONTEXT);
    expect(short.push(Buffer.from('OK'))).toBeUndefined();
    expect(short.atEnd()?.message).toContain('answered with text ("OK")');
    // Nothing at all (ARK's silence on a wrong password) is not a verdict.
    expect(new SourceRconFirstAnswer(CONTEXT).atEnd()).toBeUndefined();
  });
});

describe('TelnetFirstAnswer', () => {
  it("lets 7DTD's prompt and banner through, with telnet negotiation before them, however the reads cut them", () => {
    const negotiation = Buffer.from([0xff, 0xfb, 0x01, 0xff, 0xfd, 0x03]);
    for (const first of ['Please enter password:\r\n', '*** Connected with 7DTD server.\r\n']) {
      for (const reads of cuts(Buffer.concat([negotiation, Buffer.from(first)]))) {
        const watch = new TelnetFirstAnswer(TELNET);
        expect(reads.map((read) => watch.observe(read)).filter((out) => out !== undefined)).toEqual([]);
        expect(watch.atEnd()).toBeUndefined();
      }
    }
  });

  it('judges binary and HTTP at once, other text only at the end, however the reads cut them', () => {
    for (const reads of cuts(encodeSourceRconPacket(0, SourceRconPacketType.AUTH_RESPONSE, ''))) {
      const watch = new TelnetFirstAnswer(TELNET);
      const verdict = reads.map((read) => watch.observe(read)).find((out) => out !== undefined);
      expect(verdict?.message).toContain('answered with bytes that look like a Source RCON packet, not a 7 Days to Die telnet console');
    }
    for (const reads of cuts(Buffer.from('HTTP/1.0 200 OK\r\n'))) {
      const watch = new TelnetFirstAnswer(TELNET);
      expect(reads.map((read) => watch.observe(read)).find((out) => out !== undefined)?.message).toContain('text that looks like HTTP ("HTTP/1.0 200 OK")');
    }
    const other = new TelnetFirstAnswer(TELNET);
    expect(other.observe(Buffer.from('Welcome to the MUD!\r\n'))).toBeUndefined();
    expect(other.atEnd()?.message).toContain('answered with text ("Welcome to the MUD!")');
    const promptStart = new TelnetFirstAnswer(TELNET);
    expect(promptStart.observe(Buffer.from('Please ent'))).toBeUndefined();
    expect(promptStart.atEnd()).toBeUndefined();
  });
});

describe('isForeignHttpStatus', () => {
  it('takes a web page for another protocol, not a proxy refusing the password or a backend that is down', () => {
    expect([200, 301, 400, 404, 426].map(isForeignHttpStatus)).toEqual([true, true, true, true, true]);
    expect([401, 403, 408, 429, 500, 502, 503, undefined].map(isForeignHttpStatus)).toEqual(Array.from({ length: 8 }, () => false));
  });
});

describe('WrongProtocolNotice', () => {
  it('says a wrong port once until a login works, and never silences other failures', () => {
    const notice = new WrongProtocolNotice();
    const wrong = new RconWrongProtocolError('wrong port');
    const drop = new RconDisconnectedError('dropped', false);
    expect([notice.isRepeat(wrong), notice.isRepeat(drop), notice.isRepeat(wrong), notice.isRepeat(drop), notice.isRepeat(wrong)]).toEqual([false, false, true, false, true]);
    notice.loggedIn();
    expect([notice.isRepeat(wrong), notice.isRepeat(wrong)]).toEqual([false, true]);
  });
});
