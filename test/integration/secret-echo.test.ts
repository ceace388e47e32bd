// A service (or a proxy in front of it) that echoes the request back, as a Laravel 422 may: the v1 body carries
// the client secret form-encoded, the webhook body carries it raw. No spelling of the secret may reach the CLI's
// output, its log lines, or an error's fields.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { GsaClient } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { failureOf } from '../fixtures/failureOf.js';

// Characters that each encoding spells differently: space, +, /, &, =, a quote, a backslash, non-ASCII.
const SECRET = 'p@ss w/rd+&=é"q\\z-Secret';

/** Every spelling of SECRET, worked out here independently of the scrubber. */
const FORMS: readonly string[] = (() => {
  const json = JSON.stringify(SECRET).slice(1, -1);
  const form = new URLSearchParams({ s: SECRET }).toString().slice(2);
  const percent = encodeURIComponent(SECRET);
  const lower = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const php = json.replace(/\//g, '\\/').replace(/é/g, '\\u00e9');
  return [SECRET, json, php, form, lower(form), percent, lower(percent)];
})();

function expectNoSecret(text: string): void {
  for (const form of FORMS) expect(text, `contains ${form}`).not.toContain(form);
}

let echo: Server;
let url: string;

beforeAll(async () => {
  echo = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const query = request.url ?? '';
      // The webhook body is the secret itself; the mod API's is a form.
      const value = new URLSearchParams(body).get('client_secret') ?? body;
      const echoed = `${body} (query ${query}) (percent ${encodeURIComponent(value)}) (decoded ${value})`;
      response.writeHead(422, { 'content-type': 'application/json' });
      // PHP escapes "/" and non-ASCII in JSON; a proxy might not: both spellings are in the answer.
      const phpJson = JSON.stringify({ message: echoed }).replace(/\//g, '\\/').replace(/é/g, '\\u00e9');
      const errors = JSON.stringify({ comment: [`The comment is invalid: ${echoed}`] });
      response.end(`${phpJson.slice(0, -1)},"errors":${errors},"raw":${JSON.stringify(echoed)}}`);
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
    env: { GSA_API_URL: url, GSA_CLIENT_ID: 'echo-client', GSA_CLIENT_SECRET: SECRET, GSA_BRIDGE_LOG_LEVEL: 'debug' },
  };
  const code = await main(args, context);
  return { code, output };
}

describe('a service that echoes the request', () => {
  it('the echo really carries the secret in several spellings (the test can fail)', async () => {
    const response = await fetch(`${url}/api/v1/gameserver/x/review`, { method: 'POST', body: new URLSearchParams({ client_secret: SECRET }) });
    const text = await response.text();
    for (const form of [new URLSearchParams({ s: SECRET }).toString().slice(2), encodeURIComponent(SECRET), JSON.stringify(SECRET).slice(1, -1)]) {
      expect(text).toContain(form);
    }
  });

  it('review (v1 form body): no spelling of the secret in the CLI output or its logs', async () => {
    const { code, output } = await cli(['review', '--server', 'ovddykvbs', '--steam-id', '76561198000000001', '--stars', '5', '--comment', 'ok']);
    expect(code).toBe(1);
    expect(output).toContain('422');
    expectNoSecret(output);
  });

  it('server (raw secret body): no spelling of the secret in the CLI output', async () => {
    const { code, output } = await cli(['server', 'restart', '--id', '4711']);
    expect(code).toBe(1);
    expectNoSecret(output);
  });

  it('mute-check: no spelling of the secret in the CLI output', async () => {
    const { output } = await cli(['mute-check', '--server', 'ovddykvbs', '--steam-id', '76561198000000001']);
    expectNoSecret(output);
  });

  it('the error given to callers (and so to mods and players) holds no spelling of the secret', async () => {
    const client = new GsaClient({ baseUrl: url, clientId: 'echo-client', clientSecret: SECRET, retry: { retries: 0 } });
    try {
      const error = await failureOf(client.submitReview('ovddykvbs', { steamId: '76561198000000001' }, 5, 'ok'));
      expect(error.code).toBe('invalid');
      expectNoSecret(JSON.stringify({ message: error.message, serviceMessage: error.serviceMessage, fields: (error as { fieldErrors?: unknown }).fieldErrors }));
    } finally {
      await client.close();
    }
  });
});

describe('the logger', () => {
  it.each(['json', 'pretty'] as const)('scrubs every spelling of a secret from a line (%s)', (format) => {
    let written = '';
    const logger = createLogger({ level: 'info', format, secrets: [SECRET], destination: { write: (line: string) => (written += line) } });
    for (const form of FORMS) logger.info({ echoed: `before ${form} after` }, `message ${form}`);
    expect(written.split('\n').filter(Boolean)).toHaveLength(FORMS.length);
    expectNoSecret(written);
  });

  it.each(['json', 'pretty'] as const)('redacts secret-named keys (%s)', (format) => {
    let written = '';
    const logger = createLogger({ level: 'info', format, destination: { write: (line: string) => (written += line) } });
    logger.info({ token: 'unlisted-token-value', config: { api: { clientSecret: 'unlisted-secret-value' } } }, 'keys');
    expect(written).toContain('***');
    expect(written).not.toMatch(/unlisted-(token|secret)-value/);
  });

  it('the CLI with --pretty: no spelling of the secret in its pretty logs', async () => {
    const { output } = await cli(['review', '--pretty', '--server', 'ovddykvbs', '--steam-id', '76561198000000001', '--stars', '5', '--comment', 'ok']);
    // GSA_BRIDGE_LOG_LEVEL=debug: the client's debug lines are there, in the pretty format.
    expect(output).toMatch(/\] DEBUG: \[gsa-bridge\] /);
    expect(output).not.toContain('{"level"');
    expectNoSecret(output);
  });
});
