#!/usr/bin/env node
// Entry point for `gsa-bridge`: runs the compiled CLI (built by `npm ci` through the prepare script).
// `run` answers SIGHUP (reload) and SIGTERM/SIGINT (stop). Loading the CLI takes a few hundred ms on a busy host,
// and a SIGHUP in that time would kill the process (Node's default), so the signals are held from here, before
// anything heavy is imported, and handed to run's signal queue once it exists.
import { holdStartupSignals } from '../dist/src/cli/startupSignals.js';

if (process.argv[2] === 'run') holdStartupSignals(['SIGHUP', 'SIGTERM', 'SIGINT']);
const { main } = await import('../dist/src/cli/main.js');

const code = await main(process.argv.slice(2));
process.exitCode = code;
// The command has finished; a stray handle (a socket still closing) must not keep the process alive.
setTimeout(() => process.exit(code), 2000).unref();
