// The bound on connections that have not completed an authenticated upgrade, on its own: the oldest goes first,
// an authenticated one is never touched, and drops are told once, then as one summary per interval (fake timers).
import { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnauthenticatedConnections, type DroppedConnections } from '../../adapters/websocket/unauthenticatedConnections.js';

let reports: DroppedConnections[];
let bound: UnauthenticatedConnections;

beforeEach(() => {
  vi.useFakeTimers({ now: 0, toFake: ['setInterval', 'clearInterval'] });
  reports = [];
  bound = new UnauthenticatedConnections({ max: 3, onDropped: (report) => reports.push(report) });
});

afterEach(() => {
  bound.close();
  vi.useRealTimers();
});

describe('UnauthenticatedConnections', () => {
  it('closes the oldest beyond the bound and never one that was authenticated', () => {
    const sockets = Array.from({ length: 6 }, () => new Socket());
    bound.admit(sockets[0]!);
    bound.admit(sockets[1]!);
    bound.authenticated(sockets[0]!);
    for (const socket of sockets.slice(2)) bound.admit(socket);
    expect(bound.size).toBe(3);
    expect(sockets.map((socket) => socket.destroyed)).toEqual([false, true, true, false, false, false]);
  });

  it('reports the first drop at once, the rest as one summary per interval, then goes quiet', () => {
    for (let index = 0; index < 3 + 50; index++) bound.admit(new Socket());
    expect(reports).toEqual([{ first: true, dropped: 1, max: 3, intervalMs: 60_000 }]);
    vi.advanceTimersByTime(60_000);
    expect(reports.at(-1)).toEqual({ first: false, dropped: 49, max: 3, intervalMs: 60_000 });
    vi.advanceTimersByTime(600_000);
    expect(reports).toHaveLength(2);
    bound.admit(new Socket());
    expect(reports.at(-1)).toMatchObject({ first: true, dropped: 1 });
  });
});
