// The ports the core reaches the app through read the System API in force at each call, never one kept from when
// they were built: a reload may bring, replace or drop the key. Without one, a Minecraft lookup has nothing to ask
// (the bridge's policy decides) and a filter mute is refused with `no_system_key`.
import { describe, expect, it } from 'vitest';
import { corePorts } from '../../src/app/corePorts.js';
import type { SystemApiAccess } from '../../src/bridge/serverActions.js';
import type { ServerBridge } from '../../src/bridge/serverBridge.js';
import type { CheckMutedOptions, MuteStatus, SystemApi, SystemPlayerRef, SystemReceipt } from '../../src/gsa/index.js';

const MOJANG_ID = '069a79f4-44e9-4726-a5be-fca90e38aaf5';

/** A System API that answers the calls these ports make and records them; any other call is a test failure. */
class RecordingSystemApi implements SystemApi {
  readonly calls: string[] = [];
  constructor(readonly name: string) {}
  findPlayer(serviceId: string): Promise<SystemPlayerRef> {
    this.calls.push(`find ${serviceId}`);
    return Promise.resolve({ uuid: `uuid-of-${serviceId}` });
  }
  checkMuted(serviceId: string, options?: CheckMutedOptions): Promise<MuteStatus> {
    this.calls.push(`checkMuted ${serviceId} ${String(options?.kind)} ${String(options?.source)}`);
    return Promise.resolve({ muted: this.name === 'muting', alert: null, steamId: null, eosId: null });
  }
  mute(uuid: string): Promise<SystemReceipt> {
    this.calls.push(`mute ${uuid}`);
    return Promise.resolve({ status: 200, message: `muted by ${this.name}` });
  }
  player(): never {
    throw new Error('not used by the ports');
  }
  unmute(): never {
    throw new Error('not used by the ports');
  }
  serverAction(): never {
    throw new Error('not used by the ports');
  }
  broadcast(): never {
    throw new Error('not used by the ports');
  }
  serverFreeAt(): never {
    throw new Error('not used by the ports');
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('corePorts', () => {
  it('asks the System API in force at each Minecraft lookup, and nothing without one', async () => {
    const access: { system: SystemApi | undefined } = { system: undefined };
    const ports = corePorts(access, new Map<string, ServerBridge>());
    expect(ports.systemApi).toBe(access);
    expect(ports.mojangMuteCheck.checkMuted(MOJANG_ID, 'first', 'alpha/mc')).toBeUndefined();

    const first = new RecordingSystemApi('first');
    access.system = first;
    expect(await ports.mojangMuteCheck.checkMuted(MOJANG_ID, 'first', 'alpha/mc')).toMatchObject({ muted: false });
    const replaced = new RecordingSystemApi('muting');
    access.system = replaced;
    expect(await ports.mojangMuteCheck.checkMuted(MOJANG_ID, 'refresh', undefined)).toMatchObject({ muted: true });
    expect(first.calls).toEqual([`checkMuted ${MOJANG_ID} first alpha/mc`]);
    expect(replaced.calls).toEqual([`checkMuted ${MOJANG_ID} refresh undefined`]);
  });

  it('mutes through the System API in force, and refuses with no_system_key without one', async () => {
    const access: SystemApiAccess & { system: SystemApi | undefined } = { system: undefined };
    const { playerMuting } = corePorts(access, new Map<string, ServerBridge>());
    const player = { steamId: '76561198000000001' };
    expect(await playerMuting.mute(player, '15m', 'note')).toMatchObject({ ok: false, code: 'no_system_key' });
    const system = new RecordingSystemApi('now');
    access.system = system;
    expect(await playerMuting.mute(player, '15m', 'note')).toEqual({ ok: true, message: 'muted by now' });
    expect(system.calls).toEqual(['find 76561198000000001', 'mute uuid-of-76561198000000001']);
  });
});
