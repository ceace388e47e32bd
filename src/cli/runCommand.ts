// `gsa-bridge run [--config FILE]`: the sidecar. Starts every configured adapter against the bridge, logs
// with secrets redacted, reloads the config on SIGHUP (an invalid file is refused and the old one stays),
// and on SIGTERM/SIGINT drains and exits 0 within 10 s. Before anything touches reviews.dataDir it takes the
// directory's lock: a second sidecar on the same directory is refused (exit 2) and changes nothing. Signals that
// arrive during start wait for it to complete (one reload, however many SIGHUPs; a stop exits 0).

import type { Logger } from 'pino';
import { ConfigError, collectSecrets, describeCredentialSources, formatProblem, loadConfig, type BridgeConfig } from '../app/config.js';
import { describeListenError, listenFailureMessage } from '../net/listenFailure.js';
import { SidecarReloadError, startSidecar, type ReconfigureReport, type Sidecar } from '../sidecar.js';
import { adapterEndpointOf, adapterTitleOf } from '../../adapters/index.js';
import { describeEndpoint } from '../net/endpoint.js';
import { DataDirLock, DataDirLockError } from '../datadir/dataDirLock.js';
import { withDeadline } from '../time/deadline.js';
import { PRODUCT_NAME, VERSION } from '../version.js';
import { systemApiWarnings } from '../app/systemApiWarnings.js';
import { commandLogger } from './commandLogger.js';
import { addLoggerSecrets } from '../log/logger.js';
import type { CliContext } from './context.js';
import { CONFIG_OPTION, PRETTY_OPTION, defineCommand, parseCommandLine } from './options.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';
import { filePermissionWarnings } from './filePermissions.js';
import { reviewsControlHandler } from './reviewsCommand.js';
import { reportConfigError } from './serviceSession.js';
import { SignalQueue } from './signalQueue.js';
import { BridgeEvents } from '../bridge/events.js';
import { startOperations, type Operations } from '../ops/operations.js';
import { installCrashHandlers } from './crashHandlers.js';
import { logOpenFileLimit } from '../ops/openFileLimit.js';
import { exitOnSecondStopSignal, sidecarOperationsSources } from './runOperations.js';
import { checkCredentialsOnce } from './runCredentialsCheck.js';
import { describeApiBudget } from './apiBudgetLine.js';
import { scavengeOnMainThread } from './scavengeOnMainThread.js';

// The option table drives parsing and --help (options.ts); the logger follows --pretty and stderr (commandLogger.ts).
export const RUN_COMMAND = defineCommand({
  name: 'run',
  synopsis: '[--config FILE] [--pretty]',
  summary: 'the sidecar (default config ./config.json); SIGTERM stops, SIGHUP reloads',
  details: [
    'Exit 0 after a clean shutdown; 2 on a config error, a port in use or a data directory another sidecar holds.',
    'A SIGHUP or SIGTERM that arrives while it starts is applied once start completes (one reload for any number of SIGHUPs).',
  ],
  options: { ...CONFIG_OPTION, ...PRETTY_OPTION },
});

/** interfaces.md: exit within 10 s of SIGTERM; leave a margin for the process to wind down. */
const STOP_DEADLINE_MS = 9000;

function describeListeners(config: BridgeConfig, sidecar: Sidecar): string[] {
  const lines: string[] = [];
  for (const { server, id, type, options, adapter } of sidecar.listAdapters()) {
    if (adapter === undefined) {
      lines.push(`${type} adapter ${id} for ${server}: not running`);
      continue;
    }
    // A listener's bound port (port 0 asks for any free one) is read back from the adapter.
    const where = adapter.listeningAddress?.().url ?? describeEndpoint(adapterEndpointOf(options));
    lines.push(`${adapterTitleOf(options)} ${id} for ${server}: ${where}`);
  }
  lines.push(`review outbox: ${config.reviews.dataDir} (${sidecar.outbox.pending} pending)`);
  return lines;
}

/** How a SIGHUP ended, for the log and the reload metric (gsa_bridge_config_reloads_total{result}). */
export type ReloadResult = 'success' | 'failed' | 'invalid';

/** The reload line's account of what changed besides the adapters: "1 unchanged" alone reads as "nothing happened". */
function describeSettingsChanged(report: ReconfigureReport): string {
  const { settingsChanged: changed } = report;
  if (changed.length > 0) return `${String(changed.length)} ${changed.length === 1 ? 'setting' : 'settings'} applied in place: ${changed.join(', ')}`;
  const adaptersChanged = report.started.length + report.stopped.length + report.restarted.length > 0;
  return adaptersChanged ? 'no other setting changed' : 'nothing changed';
}

/**
 * SIGHUP: reads the config file again and applies it by difference (Sidecar.reconfigure). An invalid file is
 * refused and the running config stays; a config that cannot be applied (a new port taken) is rolled back.
 */
async function reload(sidecar: Sidecar, configPath: string | undefined, context: CliContext, logger: Logger, stopping: AbortSignal): Promise<ReloadResult> {
  const running = sidecar.config;
  let reloaded: BridgeConfig;
  try {
    reloaded = (await loadConfig({ path: configPath, env: context.env, requireFile: true })).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logger.error({ problems: error.problems.map(formatProblem) }, 'SIGHUP: the config file is invalid; keeping the running config');
    return 'invalid';
  }
  if (reloaded.reviews.dataDir !== running.reviews.dataDir) {
    // The lock is for the directory this process started with; moving reviews needs a restart.
    logger.error({ dataDir: running.reviews.dataDir }, `SIGHUP: reviews.dataDir changed; it takes effect only after a restart, so ${running.reviews.dataDir} stays in use`);
    reloaded = { ...reloaded, reviews: { ...reloaded.reviews, dataDir: running.reviews.dataDir } };
  }
  if (JSON.stringify(reloaded.http) !== JSON.stringify(running.http)) {
    // The operations endpoints live outside what a reload rebuilds (a scraper must not lose them mid-reload).
    logger.warn({ http: running.http }, `SIGHUP: the http section changed; it takes effect only after a restart, so the operations endpoints stay on ${running.http.host}:${String(running.http.port)}`);
    reloaded = { ...reloaded, http: running.http };
  }
  // New secrets (a new token, new API keys) are scrubbed by the one logger of the process from now on, in every
  // line: the parts this reload builds, the ones it keeps, the host lines and the crash handlers.
  addLoggerSecrets(logger, collectSecrets(reloaded));
  try {
    const report = await sidecar.reconfigure(reloaded);
    const { started, stopped, restarted, unchanged, settingsChanged, clientReplaced, muteCacheCleared } = report;
    logger.info(
      { started, stopped, restarted, unchanged, settingsChanged, clientReplaced, muteCacheCleared },
      `SIGHUP: config reloaded (${String(started.length)} started, ${String(stopped.length)} stopped, ${String(restarted.length)} restarted, ${String(unchanged.length)} unchanged; ${describeSettingsChanged(report)}${muteCacheCleared ? '; API key changed, mute cache cleared' : ''})`,
    );
    logger.info(`${PRODUCT_NAME} running: ${describeListeners(sidecar.config, sidecar).join('; ')}`);
    // New keys or another address: what the old client learned was forgotten (ServiceHealth.forgetProblems), so ask
    // again now rather than when the next player speaks. Not awaited: the reload is done. A kept client whose calls
    // are paused after a 401 probes at once too: the host may have bound the key in the dashboard, then reloaded.
    if (clientReplaced || sidecar.client.probeCredentialsNow()) void checkCredentialsOnce(sidecar, logger, 'reload', stopping);
    return 'success';
  } catch (error) {
    if (!(error instanceof SidecarReloadError)) throw error;
    logger.error({ code: error.code }, `SIGHUP: ${error.message}`);
    return 'failed';
  }
}

/**
 * The operations endpoints could not listen: the one line main() prints names the key to change, as an adapter's
 * names its id (src/ops does not know config keys). Anything but a bind failure is returned as it is.
 */
function operationsListenError(error: unknown, config: BridgeConfig): unknown {
  if (listenFailureMessage(error) === undefined || !(error instanceof Error) || !('code' in error)) return error;
  const errno = error as NodeJS.ErrnoException;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  const fix = errno.code === 'EADDRINUSE' || errno.code === 'EACCES' ? 'choose another http.port, or 0 for any free port' : 'check http.host';
  return new Error(`cannot listen on ${host}:${String(config.http.port)} (http.port, the operations endpoints): ${describeListenError(errno, 'endpoint')}; ${fix}`, { cause: error });
}

async function stopWithin(sidecar: Sidecar, logger: Logger): Promise<void> {
  const result = await withDeadline(
    sidecar.stop().then(() => 'stopped' as const),
    STOP_DEADLINE_MS,
    () => 'late' as const,
  );
  if (result === 'late') logger.warn('shutdown took longer than 9 s; exiting anyway (the outbox journal is fsynced as records are written)');
}

export async function runCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(RUN_COMMAND, args);
  // Before the load: a parallel scavenge waits for helper threads that a busy host may not run for a while.
  scavengeOnMainThread();
  const { config: configPath, pretty } = options;
  // Signals are queued before anything slow (reading the config, the lock, the listeners), and the ones the entry
  // point held while the modules loaded are taken over: a SIGHUP or SIGTERM during start is applied once start
  // completes, not fatal. Any number of SIGHUPs before a reload is one reload.
  const signals = new SignalQueue(['SIGTERM', 'SIGINT', 'SIGHUP'], { coalesce: ['SIGHUP'], takeOverStartupSignals: true });
  let config: BridgeConfig;
  let loadedPath: string | null;
  let sources: ReadonlyMap<string, string>;
  try {
    ({ config, path: loadedPath, sources } = await loadConfig({ path: configPath, env: context.env, requireFile: true }));
  } catch (error) {
    signals.close();
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }

  // Two sidecars on one data directory (a systemd unit plus a manual start) would compact the journal under each
  // other: refused here, before a single file in it is opened. Exit 2: it is a configuration mistake, like a busy port.
  let lock: DataDirLock;
  try {
    lock = await DataDirLock.acquire(config.reviews.dataDir, { version: VERSION });
  } catch (error) {
    signals.close();
    if (!(error instanceof DataDirLockError)) throw error;
    // The core does not know config keys; the host is told which one moves the directory.
    context.stderr.write(`error: ${error.message}${error.code === 'locked' ? ' (The directory is reviews.dataDir in the config file.)' : ''}\n`);
    return error.code === 'locked' ? EXIT_USAGE : EXIT_REFUSED;
  }

  const logger = commandLogger(context, { level: config.log.level, secrets: collectSecrets(config), pretty });
  for (const warning of await filePermissionWarnings({ configPath: loadedPath, secrets: collectSecrets(config), dataDir: config.reviews.dataDir })) {
    logger.warn(warning);
  }
  for (const warning of systemApiWarnings(config)) logger.warn(warning);
  logger.info({ dataDir: lock.holder.dataDir }, `data directory ${lock.holder.dataDir} locked for this process (pid ${process.pid})`);
  await logOpenFileLimit(logger);
  let sidecar: Sidecar;

  // Operations: the endpoints, metrics and host log lines live as long as this process, across reloads; they read
  // the current sidecar through these sources. An error nobody caught is logged (redacted) and ends the process.
  let sidecarRunning = false;
  const uninstallCrashHandlers = installCrashHandlers({ logger: () => logger, context: () => ({ running: sidecarRunning }) });
  const events = new BridgeEvents();
  let operations: Operations;
  try {
    operations = await startOperations({
      host: config.http.host,
      port: config.http.port,
      readiness: config.http.readiness,
      events,
      logger,
      sources: sidecarOperationsSources(() => ({ sidecar: sidecarRunning ? sidecar : undefined, config })),
    });
  } catch (error) {
    uninstallCrashHandlers();
    await lock.release();
    signals.close();
    // A busy http.port is main()'s one line and exit 2, like a busy adapter port.
    throw operationsListenError(error, config);
  }

  // A stop ends a credentials check still waiting for GSA, so it logs nothing about a client being closed.
  const stopping = new AbortController();
  try {
    sidecar = await startSidecar(config, { logger, events, credentialSources: describeCredentialSources(sources, loadedPath) });
    sidecarRunning = true;
    operations.setPhase('running');
    // The adapters already run: the check holds nothing back. A refusal turns /readyz 503 the moment GSA answers.
    void checkCredentialsOnce(sidecar, logger, 'start', stopping.signal);
  } catch (error) {
    await operations.close();
    uninstallCrashHandlers();
    await lock.release();
    signals.close();
    // A listener that cannot bind is reported by main() as one line and exit 2.
    if (listenFailureMessage(error) !== undefined) throw error;
    logger.fatal({ err: error }, 'the sidecar could not start');
    context.stderr.write(`error: the sidecar could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_REFUSED;
  }
  logger.info({ version: VERSION }, `${PRODUCT_NAME} running: ${describeListeners(config, sidecar).join('; ')}`);
  // What the sidecar will spend, and with whom it shares it: a host sees a wrong window or a missing `shared` at once.
  logger.info(describeApiBudget(config));
  // `gsa-bridge reviews retry` while we run goes through us, to whichever outbox is current.
  lock.serve(reviewsControlHandler(() => sidecar.outbox));
  if (signals.pending.includes('SIGHUP')) logger.info('SIGHUP arrived while starting: reloading the config now that the sidecar runs');

  for (;;) {
    const signal = await signals.next();
    if (signal !== 'SIGHUP') {
      logger.info({ signal }, 'stopping: answering what is in flight and persisting the outbox');
      operations.setPhase('stopping');
      stopping.abort();
      exitOnSecondStopSignal(signals, () => logger);
      await stopWithin(sidecar, logger);
      await lock.release();
      // Last: /healthz answers until the drain is over.
      await operations.close();
      uninstallCrashHandlers();
      signals.close();
      logger.info('stopped');
      return EXIT_OK;
    }
    const result = await reload(sidecar, configPath, context, logger, stopping.signal);
    operations.recordReload(result);
    logger.debug({ result }, 'SIGHUP handled');
  }
}
