// The private redis-server fixture: a real server on a free port, that loses everything when killed or restarted.
import { afterEach, expect, it } from 'vitest';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';

describeWithRedis('a private redis-server', () => {
  let redis: PrivateRedis | undefined;
  afterEach(async () => {
    await redis?.stop();
  });

  it('answers on its own port, and forgets everything across a kill and a restart', async () => {
    redis = await startRedis();
    expect(redis.port).not.toBe(6379);
    expect(await redis.command('SET', 'k', 'v')).toBe('+OK\r\n');
    expect(await redis.command('GET', 'k')).toBe('$1\r\nv\r\n');
    await redis.kill();
    await expect(redis.command('PING')).rejects.toThrow(/ECONNREFUSED/);
    await redis.restart();
    expect(await redis.command('GET', 'k')).toBe('$-1\r\n');
  });
});
