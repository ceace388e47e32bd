// The listener check of `config check --connect`: port 0 is always fine (nothing is bound), a free port is bound and
// released at once (it is free again afterwards), and a busy one fails naming why.
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probeListener } from '../../src/cli/connectionChecks.js';
import { unclaimedPort } from '../fixtures/ports.js';

describe('probeListener', () => {
  it('port 0 is fine without binding anything', async () => {
    expect(await probeListener('listener x', '127.0.0.1', 0)).toEqual({ outcome: 'ok', subject: 'listener x', detail: 'port 0: any free port, read back when it starts' });
  });

  it('a free port is reported free and released', async () => {
    const port = await unclaimedPort();
    expect((await probeListener('listener x', '127.0.0.1', port)).outcome).toBe('ok');
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise((resolve) => server.close(resolve));
  });

  it('a busy port fails with the reason', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      expect(await probeListener('listener x', '127.0.0.1', address.port)).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/^port in use/) as unknown });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
