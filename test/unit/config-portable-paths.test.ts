// A config file as Windows editors write it (CRLF line ends, a byte-order mark) loads as its LF twin does, and paths
// follow the rules of the platform the sidecar runs on: Windows' (path.win32, injected, since CI runs on Linux) keep
// `C:\ProgramData\…` absolute and resolve `.\data` against the config's directory; on Linux a backslash is part of a
// file name, which `config check` and `run` warn about.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backslashPathWarnings } from '../../src/app/pathWarnings.js';
import { absoluteDataDir, ConfigError, loadConfig } from '../../src/app/config.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { tempDir } from '../fixtures/tempDir.js';

const ENV = { GSA_CLIENT_SECRET: 'secret-from-env' };

function configText(reviews: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    {
      api: { clientId: 'client-1' },
      servers: [{ name: 'ovddykvbs', adapters: [{ id: 'mod', type: 'websocket', port: 8787 }] }],
      mute: { gatedChannels: ['global', 'team'] },
      reviews,
      ...extra,
    },
    null,
    2,
  );
}

async function writeConfig(dir: string, text: string, name = 'config.json'): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

describe('a config file saved on Windows', () => {
  it('loads with CRLF line ends and a byte-order mark as its LF twin does', async () => {
    const dir = await tempDir('crlf');
    const text = configText({ dataDir: 'data' });
    expect(text).toContain('\n');
    const lf = await loadConfig({ path: await writeConfig(dir, text, 'lf.json'), env: ENV });
    const windows = `\uFEFF${text.replace(/\n/g, '\r\n')}`;
    const crlf = await loadConfig({ path: await writeConfig(dir, windows, 'crlf.json'), env: ENV });
    expect(crlf.config).toEqual(lf.config);
    expect(crlf.config.mute.gatedChannels).toEqual(['global', 'team']);
  });

  it('places a syntax error in a CRLF file on the right line (a CR LF is one line break)', async () => {
    const dir = await tempDir('crlf-error');
    const broken = '\uFEFF{\r\n  "api": { "clientId": "client-1" },\r\n  "servers": [\r\n    { "name": "a", }\r\n  ]\r\n}\r\n';
    const error: unknown = await loadConfig({ path: await writeConfig(dir, broken), env: ENV }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/, line 4, column \d+:/);
  });
});

describe('reviews.dataDir with Windows path rules (path.win32)', () => {
  const base = 'C:\\ProgramData\\gsa-bridge';

  it('keeps a drive path absolute, with backslashes or forward slashes, and a UNC path', () => {
    expect(absoluteDataDir('C:\\ProgramData\\gsa-bridge\\data', base, path.win32)).toBe('C:\\ProgramData\\gsa-bridge\\data');
    expect(absoluteDataDir('C:/ProgramData/gsa-bridge/data', base, path.win32)).toBe('C:/ProgramData/gsa-bridge/data');
    expect(absoluteDataDir('\\\\nas\\share\\gsa-bridge', base, path.win32)).toBe('\\\\nas\\share\\gsa-bridge');
  });

  it("resolves a relative path against the config file's directory", () => {
    expect(absoluteDataDir('.\\data', base, path.win32)).toBe('C:\\ProgramData\\gsa-bridge\\data');
    expect(absoluteDataDir('data', base, path.win32)).toBe('C:\\ProgramData\\gsa-bridge\\data');
    expect(absoluteDataDir('./data', base, path.win32)).toBe('C:\\ProgramData\\gsa-bridge\\data');
    expect(absoluteDataDir('..\\gsa-bridge-data', base, path.win32)).toBe('C:\\ProgramData\\gsa-bridge-data');
  });

  it('reads the same strings by POSIX rules as file names with backslashes in them', () => {
    expect(absoluteDataDir('.\\data', '/etc/gsa-bridge', path.posix)).toBe('/etc/gsa-bridge/.\\data');
    expect(absoluteDataDir('C:\\ProgramData\\gsa-bridge\\data', '/etc/gsa-bridge', path.posix)).toBe('/etc/gsa-bridge/C:\\ProgramData\\gsa-bridge\\data');
    expect(absoluteDataDir('/var/lib/gsa-bridge', '/etc/gsa-bridge', path.posix)).toBe('/var/lib/gsa-bridge');
  });
});

describe('a Windows path in a config loaded on Linux', () => {
  it('resolves `.\\data` to one directory beside the config file, and warns that the backslash is a file-name character', async () => {
    const dir = await tempDir('backslash');
    const file = await writeConfig(dir, configText({ dataDir: '.\\data' }));
    const { config } = await loadConfig({ path: file, env: ENV });
    expect(config.reviews.dataDir).toBe(`${dir}${path.sep}.\\data`);
    const [warning, ...more] = backslashPathWarnings(config, 'linux');
    expect(more).toEqual([]);
    expect(warning).toBe(
      `reviews.dataDir is ${dir}/.\\data: on linux a backslash is part of a file name, not a separator: write the path with / (a config copied from Windows?)`,
    );
    expect(backslashPathWarnings(config, 'win32')).toEqual([]);
  });

  it("warns about an rcon adapter's logFile with backslashes too, and not about forward slashes", async () => {
    const dir = await tempDir('backslash-log');
    const rcon = { id: 'conan', type: 'rcon', profile: 'conan', port: 25575, password: 'rcon-pass', logFile: 'C:\\conan\\Saved\\Logs\\ConanSandbox.log' };
    const servers = [{ name: 'ovddykvbs', adapters: [rcon] }];
    const file = await writeConfig(dir, configText({ dataDir: '/var/lib/gsa-bridge' }, { servers }));
    const { config } = await loadConfig({ path: file, env: ENV });
    expect(backslashPathWarnings(config, 'linux')).toEqual([expect.stringMatching(/^servers\[0\]\.adapters\[0\]\.logFile \(conan\) is C:\\conan\\Saved/)]);
    const forward = await writeConfig(dir, configText({ dataDir: '/var/lib/gsa-bridge' }, { servers: [{ name: 'ovddykvbs', adapters: [{ ...rcon, logFile: '/srv/conan/ConanSandbox.log' }] }] }), 'forward.json');
    expect(backslashPathWarnings((await loadConfig({ path: forward, env: ENV })).config, 'linux')).toEqual([]);
  });

  it('is a warning line of `config check`, which still exits 0', async () => {
    const dir = await tempDir('backslash-check');
    const file = await writeConfig(dir, configText({ dataDir: '.\\data' }));
    const run = await runCliInProcess(['config', 'check', '--config', file], ENV);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`warning: reviews.dataDir is ${dir}/.\\data: on ${process.platform} a backslash is part of a file name`);
  });
});
