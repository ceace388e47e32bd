// deploy/windows/gsa-bridge-service.xml, the WinSW recipe, checked on Linux for what would break it on Windows: XML
// that WinSW could not read (a `--` inside a comment is not well-formed), a command line that does not run the
// sidecar itself with an absolute config path, a stop timeout shorter than the sidecar's drain, no restart, or a
// secret written into it. WinSW itself is not run here (docs/windows.md says so).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const RECIPE = 'deploy/windows/gsa-bridge-service.xml';
/** The sidecar drains within this many seconds of SIGINT (interfaces.md, Signals); WinSW must wait longer. */
const DRAIN_SECONDS = 10;

function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

function seconds(duration: string): number {
  const match = /^\s*(\d+)\s*(sec|secs|min|mins)\s*$/.exec(duration);
  if (match === null) throw new Error(`not a WinSW duration: ${duration}`);
  return Number(match[1]) * (match[2]!.startsWith('min') ? 60 : 1);
}

/** Splits a Windows command line the way the C runtime does for these simple cases: quotes group, spaces split. */
function commandLine(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** The recipe's problems; the tests feed it mutated copies too. */
function recipeProblems(xml: string): string[] {
  const problems: string[] = [];
  for (const [, comment] of xml.matchAll(/<!--([\s\S]*?)-->/g)) {
    if (comment!.includes('--')) problems.push('a comment holds "--", which XML forbids: WinSW cannot read the file');
  }
  if (!/^<!--[\s\S]*?-->\s*<service>[\s\S]*<\/service>\s*$/.test(xml)) problems.push('the root element must be <service>');
  if (element(xml, 'id') !== 'gsa-bridge') problems.push('<id> must be gsa-bridge (the ACLs name NT SERVICE\\gsa-bridge)');
  const executable = element(xml, 'executable') ?? '';
  if (!path.win32.isAbsolute(executable) || path.win32.basename(executable).toLowerCase() !== 'node.exe') problems.push('<executable> must be node.exe by absolute path, never npm or npx');
  const [script, command, flag, config, ...rest] = commandLine(element(xml, 'arguments') ?? '');
  if (script === undefined || !path.win32.isAbsolute(script) || !script.endsWith('\\bin\\gsa-bridge.js')) problems.push('<arguments> must start with the absolute path of bin\\gsa-bridge.js');
  if (command !== 'run' || flag !== '--config' || config === undefined || !path.win32.isAbsolute(config) || rest.length > 0) problems.push('<arguments> must be `run --config` and an absolute config path');
  const stop = element(xml, 'stoptimeout');
  if (stop === undefined || seconds(stop) <= DRAIN_SECONDS) problems.push(`<stoptimeout> must be longer than the sidecar's ${DRAIN_SECONDS} s drain`);
  if (!/<onfailure action="restart"/.test(xml)) problems.push('<onfailure action="restart"> is missing');
  const outsideComments = xml.replace(/<!--[\s\S]*?-->/g, '');
  if (/GSA_CLIENT_SECRET|clientSecret|<password>/i.test(outsideComments)) problems.push('a secret is written into the recipe');
  return problems;
}

describe('the WinSW recipe', () => {
  const recipe = readFileSync(RECIPE, 'utf8');

  it('runs node.exe on the sidecar with run --config, waits longer than the drain, restarts, and holds no secret', () => {
    expect(recipeProblems(recipe)).toEqual([]);
    const [script, , , config] = commandLine(element(recipe, 'arguments')!);
    expect(script).toBe('C:\\Program Files\\gsa-bridge\\node_modules\\gsa-bridge\\bin\\gsa-bridge.js');
    expect(config).toBe('C:\\ProgramData\\gsa-bridge\\config.json');
    expect(seconds(element(recipe, 'stoptimeout')!)).toBe(20);
  });

  it.each<[string, (xml: string) => string, RegExp]>([
    ['a "--" in a comment', (xml) => xml.replace('<!--', '<!-- npm install --prefix'), /XML forbids/],
    ['npx in place of node', (xml) => xml.replace(/<executable>[^<]*</, '<executable>C:\\Program Files\\nodejs\\npx.cmd<'), /<executable> must be node\.exe/],
    ['a relative config path', (xml) => xml.replace('"C:\\ProgramData\\gsa-bridge\\config.json"', 'config.json'), /absolute config path/],
    ['the demo instead of run', (xml) => xml.replace(' run --config', ' demo --config'), /must be `run --config`/],
    ['a stop timeout as short as the drain', (xml) => xml.replace('<stoptimeout>20 sec</stoptimeout>', '<stoptimeout>10 sec</stoptimeout>'), /longer than the sidecar's 10 s drain/],
    ['no restart', (xml) => xml.replaceAll(/<onfailure[^>]*\/>/g, ''), /onfailure/],
    ['the secret in an env element', (xml) => xml.replace('<env name="NODE_ENV"', '<env name="GSA_CLIENT_SECRET" value="s3cret"/>\n  <env name="NODE_ENV"'), /a secret is written/],
  ])('refuses a copy with %s', (_label, change, problem) => {
    const changed = change(recipe);
    expect(changed).not.toBe(recipe);
    expect(recipeProblems(changed)).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });
});
