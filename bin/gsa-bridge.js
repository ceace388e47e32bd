#!/usr/bin/env node
// Entry point for `gsa-bridge`: runs the compiled CLI (built by `npm ci` through the prepare script).
import { main } from '../dist/src/cli/main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// The command has finished; a stray handle (a socket still closing) must not keep the process alive.
setTimeout(() => process.exit(code), 2000).unref();
