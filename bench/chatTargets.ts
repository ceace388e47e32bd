// What the chat benches share: a bare `ws` echo server (the baseline: one JSON round trip per line), and one run of
// the load client (bench/chatLoadClient) in its own process against a target. Nothing here prints.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WebSocketServer } from 'ws';

const CLIENT = fileURLToPath(new URL('./chatLoadClient.js', import.meta.url));
const run = promisify(execFile);

export interface LoadResult {
  readonly messages: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** One run of the load client against `url` (see chatLoadClient.ts for the arguments). */
export async function load(url: string, token: string, args: readonly (string | number)[]): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [CLIENT, url, token, ...args.map(String)], { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}

/** A bare `ws` server answering every chat frame with an `allow` verdict after a JSON round trip. */
export async function startEchoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { id?: string };
      socket.send(JSON.stringify({ type: 'chat.verdict', id: frame.id, allow: true, reason: 'ok' }));
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('unexpected address');
  return {
    url: `ws://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => {
          resolve();
        });
      }),
  };
}
