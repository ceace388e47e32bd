// A System API (or a proxy in front of it) that echoes the request back, Authorization header included: the key
// goes out as `Bearer <key>`, so an echo carries it raw, JSON-escaped, PHP-escaped, form- and percent-encoded. No
// spelling of the System API key may reach the CLI's output (at debug level, JSON or pretty), or an error's fields.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { SystemApiClient } from '../../src/gsa/index.js';
import { failureOf } from '../fixtures/failureOf.js';

// Characters that each encoding spells differently (a header value takes visible ASCII and spaces only).
const KEY = 'sys k3y/w+&=rd"q\\z-Key';

/** Every spelling of KEY, worked out here independently of the scrubber. */
const FORMS: readonly string[] = (() => {
  const json = JSON.stringify(KEY).slice(1, -1);
  const form = new URLSearchParams({ s: KEY }).toString().slice(2);
  const percent = encodeURIComponent(KEY);
  const lower = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const php = json.replace(/\//g, '\\/');
  return [KEY, json, php, form, lower(form), percent, lower(percent)];
})();

function expectNoKey(text: string): void {
  for (const form of FORMS) expect(text, `contains ${form}`).not.toContain(form);
}

let echo: Server;
let url: string;
/** The status the echo answers with, by path ending. */
const STATUS: readonly [RegExp, number][] = [
  [/\/players\/find$/, 404],
  [/\/mute$/, 400],
  [/\/unmute$/, 401],
  [/\/broadcast$/, 200],
  [/\/restart$/, 429],
];

beforeAll(async () => {
  echo = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const auth = request.headers.authorization ?? '';
      const value = auth.replace(/^Bearer /, '');
      const echoed = `${auth} ${body} (percent ${encodeURIComponent(value)}) (form ${new URLSearchParams({ k: value }).toString()})`;
      const status = STATUS.find(([pattern]) => pattern.test(request.url ?? ''))?.[1] ?? 500;
      response.writeHead(status, { 'content-type': 'application/json' });
      const key = status === 200 ? 'data' : 'error';
      // PHP escapes "/" in JSON; a proxy might not: both spellings are in the answer.
      const phpJson = JSON.stringify({ [key]: echoed }).replace(/\//g, '\\/');
      response.end(`${phpJson.slice(0, -1)},"raw":${JSON.stringify(echoed)}}`);
    });
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});

afterAll(async () => {
  echo.closeAllConnections();
  await new Promise((resolve) => echo.close(resolve));
});

async function cli(args: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const context: CliContext = {
    stdout: { write: (text: string) => (output += text) },
    stderr: { write: (text: string) => (output += text) },
    env: { GSA_API_URL: url, GSA_CLIENT_ID: 'echo-client', GSA_CLIENT_SECRET: 'echo-secret', GSA_SYSTEM_API_KEY: KEY, GSA_BRIDGE_LOG_LEVEL: 'debug' },
  };
  const code = await main(args, context);
  return { code, output };
}

describe('a System API that echoes the key', () => {
  it('the echo really carries the key in several spellings (the test can fail)', async () => {
    const response = await fetch(`${url}/system-api/v2/gameserver/1/broadcast`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    const text = await response.text();
    for (const form of [KEY.replace(/\//g, '\\/').replace(/"/g, '\\"').replace(/\\z/, '\\\\z'), encodeURIComponent(KEY), new URLSearchParams({ s: KEY }).toString().slice(2)]) {
      expect(text).toContain(form);
    }
  });

  it.each([
    [['mute', '--steam-id', '76561198000000001', '--permanent'], 1],
    [['mute', '--player', 'f47ac10b', '--period', '1h'], 1],
    [['unmute', '--player', 'f47ac10b'], 1],
    [['broadcast', '--id', '7', '--', 'hi'], 0],
    [['broadcast', '--id', '7', '--pretty', '--', 'hi'], 0],
    [['server', 'restart', '--id', '7'], 1],
  ])('%j: no spelling of the key in the output or its debug logs', async (args, exit) => {
    const { code, output } = await cli(args);
    expect(code, output).toBe(exit);
    expect(output).toMatch(/DEBUG|"level":20/);
    expectNoKey(output);
  });

  it('the errors and receipts given to callers hold no spelling of the key', async () => {
    const client = new SystemApiClient({ baseUrl: url, key: KEY, retry: { retries: 0 } });
    try {
      const errors = [await failureOf(client.mute('f47ac10b', { type: 'permanent' })), await failureOf(client.findPlayer('1'))];
      expectNoKey(JSON.stringify(await client.broadcast(7, 'hi')));
      // The 401 last: after it the client pauses every call (credentials_refused) until a probe.
      errors.push(await failureOf(client.unmute('0b6f8a0e')));
      expect(errors.map((error) => error.code)).toEqual(['refused', 'not_found', 'unauthorized']);
      for (const error of errors) expectNoKey(JSON.stringify({ message: error.message, serviceMessage: error.serviceMessage, error }));
    } finally {
      await client.close();
    }
  });
});
