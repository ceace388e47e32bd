// What `orders list` and `reports list` share: the data directory read from the config (reviews.dataDir, resolved
// against the config file's directory, no credentials needed), a player's ids in the listings' words, and the note
// about lines the files could not read. Read-only: it never opens a file for writing and never takes the lock.

import { ConfigError, loadConfig } from '../app/config.js';
import type { PlayerIdentity } from '../bridge/port.js';
import type { LedgerListing } from '../ledger/ledgerViews.js';
import type { CliContext } from './context.js';
import { reportConfigError } from './serviceSession.js';

/** The config's data directory, or the exit code after the config's problems were printed. */
export async function listingDataDir(context: CliContext, configPath: string | undefined): Promise<string | number> {
  try {
    return (await loadConfig({ path: configPath, env: context.env, requireFile: true, requireCredentials: false })).config.reviews.dataDir;
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
}

/** As the mod protocol names them: steam_id, eos_id, mojang_id, name. */
export function playerJson(player: PlayerIdentity): Record<string, string> {
  return {
    ...(player.steamId === undefined ? {} : { steam_id: player.steamId }),
    ...(player.eosId === undefined ? {} : { eos_id: player.eosId }),
    ...(player.mojangId === undefined ? {} : { mojang_id: player.mojangId }),
    ...(player.name === undefined ? {} : { name: player.name }),
  };
}

/** The player's id, and their name quoted (a name is player text: quoting keeps it from faking a column). */
export function playerText(player: PlayerIdentity): string {
  const id = player.steamId ?? player.eosId ?? player.mojangId ?? '?';
  return player.name === undefined ? id : `${id} ${JSON.stringify(player.name)}`;
}

export function isoTime(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** One stderr line per kind of line the listing could not show, naming the file a person reads. */
export function damagedNotes(context: CliContext, listing: LedgerListing<unknown>, guide: string): void {
  if (listing.damaged > 0) {
    context.stderr.write(`${listing.damaged} line(s) of ${listing.file} do not read as a record and are not listed; the sidecar moves them to ${listing.quarantineFile} at its next start (${guide})\n`);
  }
  if (listing.quarantined > 0) {
    context.stderr.write(`${listing.quarantined} damaged line(s) were set aside in ${listing.quarantineFile} and are not listed: read them there (${guide})\n`);
  }
}
