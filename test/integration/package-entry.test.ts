// The package as a library user imports it: by name, from the built dist (npm test builds first).
import { describe, expect, it } from 'vitest';

describe('the package entry point', () => {
  it('exports a working client and emulator under the package name', async () => {
    const { GsaClient, GsaEmulator, VERSION } = await import('gsa-bridge');
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    const emulator = await GsaEmulator.start();
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret });
    try {
      emulator.mute('ovddykvbs', '76561198000000002', 'muted');
      expect(await client.checkMuted('ovddykvbs', { steamId: '76561198000000002' })).toMatchObject({ muted: true, alert: 'muted' });
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
