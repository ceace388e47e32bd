// The per-player review cooldown through a real sidecar and real WebSockets: reviews sent at once by one player
// admit exactly one, because the check and the reservation are one synchronous step.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectMod } from '../fixtures/modSocket.js';
import { HARNESS_TOKEN, startSidecarHarness } from '../fixtures/sidecarHarness.js';
import { patientMs } from '../fixtures/patience.js';

const STEAM = '76561198000000001';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('review cooldown', () => {
  it('queues exactly one of 10 reviews one player sends at once, and refuses 9 with rate_limited', async () => {
    const { url, emulator, sidecar } = await startSidecarHarness((stop) => cleanups.push(stop));
    // Two connections, as a mod that reconnects mid-burst would have: the cooldown is the player's, not the socket's.
    const sockets = [await connectMod(url, HARNESS_TOKEN), await connectMod(url, HARNESS_TOKEN)];
    for (const socket of sockets) cleanups.push(() => socket.close());
    for (let index = 0; index < 10; index++) {
      sockets[index % 2]?.send({ type: 'review', id: `r${index}`, player: { steam_id: STEAM }, stars: 5, comment: `burst ${index}` });
    }
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        sockets[index % 2]!.waitFor((frame) => frame.id === `r${index}` && (frame.type === 'review.queued' || frame.type === 'error')),
      ),
    );
    expect(answers.filter((frame) => frame.type === 'review.queued')).toHaveLength(1);
    const refused = answers.filter((frame) => frame.type === 'error');
    expect(refused).toHaveLength(9);
    for (const frame of refused) expect(frame).toMatchObject({ code: 'rate_limited' });
    await vi.waitFor(() => {
      expect(sidecar.outbox.pending).toBe(0);
    }, { timeout: patientMs(10_000), interval: 10 });
    expect(emulator.reviews).toHaveLength(1);
  });
});
