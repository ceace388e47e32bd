// Decides whether a configured host stays on this machine (127.0.0.0/8, ::1, localhost).
// Must never resolve names through DNS: the answer has to be the same at validation time and at bind time,
// and a name that merely happens to resolve to 127.0.0.1 today is not a promise that it will tomorrow.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** True for `localhost`, any 127.0.0.0/8 address and `::1` (including IPv4-mapped forms such as `::ffff:127.0.0.1`). */
export function isLoopbackHost(host: string): boolean {
  const normalized = host.trim().toLowerCase();
  if (normalized === 'localhost') return true;
  if (isIPv4(normalized)) return loopback.check(normalized, 'ipv4');
  if (isIPv6(normalized)) return loopback.check(normalized, 'ipv6');
  return false;
}

/** True for the any-address hosts, which overlap every other bind on the same port. */
export function isWildcardHost(host: string): boolean {
  const normalized = host.trim().toLowerCase();
  return normalized === '0.0.0.0' || normalized === '::' || normalized === '0:0:0:0:0:0:0:0';
}
