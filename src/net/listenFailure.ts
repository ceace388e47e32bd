// Recognises a listener that could not bind (port in use, no permission, address not on this machine) and
// says so in one line naming the address, for every command that listens: interfaces.md makes it a
// configuration problem (exit 2), not a crash with a stack trace. It never binds or retries anything itself.

/**
 * Why a bind failed, in words a host can act on. `listener`: an adapter's listener, which another adapter may hold
 * too, or the one operations endpoint, which only another program can hold. @default 'adapter'
 */
export function describeListenError(error: NodeJS.ErrnoException, listener: 'adapter' | 'endpoint' = 'adapter'): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return listener === 'adapter' ? 'port in use (another program, or another adapter, listens there)' : 'port in use (another program listens there)';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    case 'EADDRNOTAVAIL':
      return 'address not available on this machine';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name does not resolve';
    default:
      return error.message;
  }
}

function isErrno(value: unknown): value is NodeJS.ErrnoException & { address?: unknown; port?: unknown } {
  return value instanceof Error && typeof (value as NodeJS.ErrnoException).code === 'string';
}

/** A wrapper that already names the address and the reason, as the WebSocket adapter throws. */
const NAMED_PREFIX = 'cannot listen on ';

/**
 * The one line to print when `error` is a failed bind, else undefined: a wrapper that already names the
 * address ("cannot listen on …") is kept as it is; a raw errno error from listen() gets its address and
 * reason spelled out. Outbound failures (a connect or a DNS lookup for a request) are never taken for one.
 */
export function listenFailureMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message.startsWith(NAMED_PREFIX) && isErrno(error.cause)) return error.message;
  if (!isErrno(error) || (error.syscall !== 'listen' && error.syscall !== 'bind')) return undefined;
  const address = typeof error.address === 'string' ? error.address : '?';
  const host = address.includes(':') ? `[${address}]` : address;
  const port = typeof error.port === 'number' ? `:${String(error.port)}` : '';
  return `${NAMED_PREFIX}${host}${port}: ${describeListenError(error)}`;
}
