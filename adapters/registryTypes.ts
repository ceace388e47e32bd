// What an adapter type registers: the schema of its options in the config file and a factory that builds one
// adapter from them. Types only: the registry itself is adapters/index.ts.
import type { z } from 'zod';
import type { Adapter } from '../src/bridge/port.js';
import type { Logger } from 'pino';

/** Everything an adapter gets from the composition root besides its own options. */
export interface AdapterContext {
  /** The GSA container name of the game server this adapter belongs to. */
  readonly serverName: string;
  /** The adapter's stable id (configured, or derived as `<server>-<type>-<port>`). */
  readonly id: string;
  /** Already carries `server` and `adapter` fields. */
  readonly logger: Logger;
  /** '<name>/<version>' of the sidecar, e.g. for a welcome message. */
  readonly sidecar: string;
}

/** The options every adapter type has, whatever else its schema adds. */
export interface CommonAdapterOptions {
  readonly type: string;
  readonly id?: string | undefined;
  readonly port: number;
}

export interface AdapterType<Options extends CommonAdapterOptions> {
  /** The `type` value in the config file. */
  readonly type: Options['type'];
  /** Validates one entry of `servers[].adapters[]` of this type, applying its defaults. */
  readonly schema: z.ZodType<Options>;
  /** Builds the adapter (not started yet); undefined when this type cannot run here, after saying why in the log. */
  create(options: Options, context: AdapterContext): Adapter | undefined;
}
