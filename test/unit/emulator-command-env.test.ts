// `gsa-bridge emulator` takes its keys from the environment, never from argv: the System API key from
// GSA_SYSTEM_API_KEY beside the client id and secret; an unset or empty variable keeps the demo default.
import { describe, expect, it } from 'vitest';
import { optionsFromEnvironment } from '../../src/cli/emulatorCommand.js';

describe('emulator command keys from the environment', () => {
  it('takes GSA_SYSTEM_API_KEY as the system key; unset or empty keeps the demo key', () => {
    expect(optionsFromEnvironment({ env: { GSA_SYSTEM_API_KEY: 'from-env' } })).toStrictEqual({ systemKey: 'from-env' });
    expect(optionsFromEnvironment({ env: { GSA_SYSTEM_API_KEY: '', GSA_CLIENT_SECRET: 's' } })).toStrictEqual({ clientSecret: 's' });
    expect(optionsFromEnvironment({ env: {} })).toStrictEqual({});
  });
});
