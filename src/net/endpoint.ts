// Where one adapter meets the outside world, as its type describes it from its options: a port it binds here, a
// game console it connects to, a log file it reads, or nothing of the kind. The config's clash and token rules,
// derived ids, `config check --connect` and the startup line read this instead of assuming host and port.
// Types and pure helpers only: must never open, bind or resolve anything.
import { basename } from 'node:path';

export type AdapterEndpoint =
  /** Binds host:port on this machine (port 0: any free port); beyond loopback it needs a strong token. */
  | { readonly kind: 'listener'; readonly host: string; readonly port: number }
  /** Connects to host:port (a game server's console). */
  | { readonly kind: 'target'; readonly host: string; readonly port: number }
  /** Reads a file (a game's log); a `*` in its last segment stands for the newest matching file. */
  | { readonly kind: 'file'; readonly path: string }
  /** Neither listens, connects nor reads a file of its own. */
  | { readonly kind: 'none' };

/**
 * Which option key each field of an adapter's endpoint is read from (`{ host: 'host', port: 'port' }`,
 * `{ path: 'logFile' }`): a problem on that key means the field is not known, and a config rule that needs it is
 * skipped for that adapter.
 */
export interface EndpointKeys {
  readonly host?: string | undefined;
  readonly port?: string | undefined;
  readonly path?: string | undefined;
}

/** `[::1]` for an IPv6 literal, the host as it is otherwise: for `host:port` in a message or a URL. */
export function hostForAddress(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** For a person: `127.0.0.1:8787`, `/srv/ark/ShooterGame.log`, `no endpoint`. */
export function describeEndpoint(endpoint: AdapterEndpoint): string {
  switch (endpoint.kind) {
    case 'listener':
    case 'target':
      return `${hostForAddress(endpoint.host)}:${String(endpoint.port)}`;
    case 'file':
      return endpoint.path;
    case 'none':
      return 'no endpoint';
  }
}

/**
 * The part of a derived adapter id that tells two adapters of one type on one server apart: the port for a
 * listener or a target (so `<server>-<type>-<port>` ids stay what they were), the file's name for a file (characters
 * an id cannot hold become `_`), nothing for none.
 */
export function endpointIdPart(endpoint: AdapterEndpoint): string | undefined {
  switch (endpoint.kind) {
    case 'listener':
    case 'target':
      return String(endpoint.port);
    case 'file':
      return basename(endpoint.path).replace(/[^A-Za-z0-9._-]/g, '_') || undefined;
    case 'none':
      return undefined;
  }
}
