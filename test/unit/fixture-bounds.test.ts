// The suite's own rules for bounds and ports (test/fixtures/patience.ts, test/fixtures/ports.ts): a bound stretches
// with the machine's load but never below its quiet value nor past what a proof allows, and a fixed port is never one
// the kernel could hand to another test file's listen(0) or outgoing connection.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { machineSlowness, patientMs } from '../fixtures/patience.js';
import { unclaimedPort } from '../fixtures/ports.js';

function ephemeralRange(): [number, number] {
  const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  return [low ?? 0, high ?? 0];
}

describe('patientMs', () => {
  it('is the quiet bound times the slowness, which is 1 to 10', () => {
    const slowness = machineSlowness();
    expect(slowness).toBeGreaterThanOrEqual(1);
    expect(slowness).toBeLessThanOrEqual(10);
    expect(patientMs(1000)).toBeGreaterThanOrEqual(1000);
    expect(patientMs(1000)).toBeLessThanOrEqual(10_000);
  });

  it('stays below the bound a proof needs', () => {
    expect(patientMs(1000, 1000)).toBe(999);
    expect(patientMs(60_000, 44_000)).toBe(43_999);
  });
});

describe.runIf(process.platform === 'linux')('unclaimedPort', () => {
  it('hands out distinct ports outside the ephemeral range that a listener can bind', async () => {
    const [low, high] = ephemeralRange();
    const ports: number[] = [];
    for (let index = 0; index < 20; index++) ports.push(await unclaimedPort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port < low || port > high, `${String(port)} is in ${String(low)}–${String(high)}`).toBe(true);
      expect(port).toBeGreaterThanOrEqual(1024);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
