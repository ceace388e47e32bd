#!/usr/bin/env node
// Entry point for `gsa-bridge`: runs the compiled CLI (built by `npm ci` through the prepare script).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
