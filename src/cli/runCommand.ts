// `gsa-bridge run [--config FILE]`: the sidecar. Starts every configured adapter against the bridge, logs
// with secrets redacted, reloads the config on SIGHUP (an invalid file is refused and the old one stays),
// and on SIGTERM/SIGINT drains and exits 0 within 10 s. Before anything touches reviews.dataDir it takes the
// directory's lock: a second sidecar on the same directory is refused (exit 2) and changes nothing. Signals that
// arrive during start wait for it to complete (one reload, however many SIGHUPs; a stop exits 0). Its control
// channel serves `reviews retry`, `mutes`, `reload` and a host's `mute`/`unmute`; a reload asked for there joins the
// SIGHUPs' queue. Once a stop begins, no reload is applied: `reload` is refused, a SIGHUP ignored, each with a warning.
// Everything it opens registers its close on a DisposalStack (src/app/disposalStack.ts) the moment it has opened, so a
// start that fails part way and a stop unwind the same way, in reverse; it never closes a part by hand.

import type { Logger } from 'pino';
import { ConfigError, DEFAULT_LOG_FILE_MAX_BYTES, DEFAULT_LOG_FILE_MAX_FILES, collectSecrets, describeCredentialSources, formatProblem, loadConfig, type BridgeConfig, type ShadowedKey } from '../app/config.js';
import { describeListenError, listenFailureMessage } from '../net/listenFailure.js';
import { SidecarReloadError, startSidecar, type ReconfigureReport, type Sidecar } from '../sidecar.js';
import { adapterEndpointOf, adapterTitleOf } from '../../adapters/index.js';
import { describeEndpoint } from '../net/endpoint.js';
import { DataDirLock, DataDirLockError } from '../datadir/dataDirLock.js';
import { DisposalStack, type DisposalLogger } from '../app/disposalStack.js';
import type { RotatingLogFile } from '../log/rotatingLogFile.js';
import { withDeadline } from '../time/deadline.js';
import { PRODUCT_NAME, VERSION } from '../version.js';
import { backslashPathWarnings } from '../app/pathWarnings.js';
import { commandLogger } from './commandLogger.js';
import { addLoggerSecrets } from '../log/logger.js';
import type { CliContext } from './context.js';
import { CONFIG_OPTION, PRETTY_OPTION, defineCommand, parseCommandLine } from './options.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';
import { SidecarStartError } from './errors.js';
import { filePermissionWarnings } from './filePermissions.js';
import { reviewsControlHandler } from './reviewsCommand.js';
import { MUTES_OP, mutesControlHandler } from './mutesCommand.js';
import { RELOAD_OP, RELOAD_TRIGGER, reloadControlHandler, type ReloadOutcome } from './reloadCommand.js';
import { PLAYER_MUTE_OP, playerMuteControlHandler } from './hostMuteControl.js';
import { ReloadRequests } from './reloadRequests.js';
import { routeControl } from '../datadir/controlRouter.js';
import { MutedPlayers } from '../ops/mutedPlayers.js';
import { openLogFile } from './logFile.js';
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
import { HeapSettler } from '../ops/heapSettler.js';
import { Notifier } from '../notify/notifier.js';

// The option table drives parsing and --help (options.ts); the logger follows --pretty and stderr (commandLogger.ts).
export const RUN_COMMAND = defineCommand({
  name: 'run',
  synopsis: '[--config FILE] [--pretty]',
  summary: 'the sidecar (default config ./config.json); SIGTERM stops, SIGHUP (or gsa-bridge reload) reloads',
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

/** A reload posted into the signal queue by the control channel's `reload` op. */
const RELOAD_REQUEST = 'reload-request';

/** What a reload cannot change: keys the file sets that the process's environment overrides (names, never values). */
function shadowedNotice(shadowed: readonly ShadowedKey[]): string | undefined {
  if (shadowed.length === 0) return undefined;
  const list = shadowed.map(({ path, variable }) => `${path} (${variable})`).join(', ');
  const one = shadowed.length === 1;
  return `the file's ${list} ${one ? 'is' : 'are'} not used: the environment this sidecar started with overrides ${one ? 'it' : 'them'}, and a reload does not read the environment again; change or unset the variable and restart`;
}

/**
 * `next` with what only a restart changes kept as it runs, each with a line saying so: reviews.dataDir (the lock is
 * for the directory this process started with), the log file's settings (opened once, before anything else, so
 * that every line of the process is in it) and the http section (the operations endpoints live outside what a
 * reload rebuilds: a scraper must not lose them mid-reload). `next` itself when none of them changed.
 */
function keptUntilRestart(next: BridgeConfig, running: BridgeConfig, logger: Logger, trigger: string): BridgeConfig {
  const sameDataDir = next.reviews.dataDir === running.reviews.dataDir;
  if (!sameDataDir) {
    logger.error({ dataDir: running.reviews.dataDir }, `${trigger}: reviews.dataDir changed; it takes effect only after a restart, so ${running.reviews.dataDir} stays in use`);
  }
  const fileSettings = (log: BridgeConfig['log']): string => JSON.stringify([log.file, log.maxBytes, log.maxFiles]);
  const sameLogFile = fileSettings(next.log) === fileSettings(running.log);
  if (!sameLogFile) logger.warn({ file: running.log.file ?? null }, `${trigger}: log.file, log.maxBytes or log.maxFiles changed; they take effect only after a restart`);
  const sameHttp = JSON.stringify(next.http) === JSON.stringify(running.http);
  if (!sameHttp) {
    logger.warn({ http: running.http }, `${trigger}: the http section changed; it takes effect only after a restart, so the operations endpoints stay on ${running.http.host}:${String(running.http.port)}`);
  }
  if (sameDataDir && sameLogFile && sameHttp) return next;
  return {
    ...next,
    reviews: sameDataDir ? next.reviews : { ...next.reviews, dataDir: running.reviews.dataDir },
    log: sameLogFile ? next.log : { ...running.log, level: next.log.level },
    http: sameHttp ? next.http : running.http,
  };
}

/**
 * SIGHUP or `gsa-bridge reload` (`trigger` names which in the log lines): reads the config file again and applies it
 * by difference (Sidecar.reconfigure). An invalid file is refused and the running config stays; a config that cannot
 * be applied (a new port taken) is rolled back.
 */
async function reload(sidecar: Sidecar, configPath: string | undefined, context: CliContext, logger: Logger, stopping: AbortSignal, trigger: string): Promise<ReloadOutcome> {
  const running = sidecar.config;
  const loaded = await loadConfig({ path: configPath, env: context.env, requireFile: true }).catch((error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    return error;
  });
  if (loaded instanceof ConfigError) {
    const problems = loaded.problems.map(formatProblem);
    logger.error({ problems }, `${trigger}: the config file is invalid; keeping the running config`);
    return { result: 'invalid', problems };
  }
  const { shadowed } = loaded;
  const reloaded = keptUntilRestart(loaded.config, running, logger, trigger);
  // New secrets (a new token, new API keys) are scrubbed by the one logger of the process from now on, in every
  // line: the parts this reload builds, the ones it keeps, the host lines and the crash handlers.
  addLoggerSecrets(logger, collectSecrets(reloaded));
  try {
    const report = await sidecar.reconfigure(reloaded);
    const { started, stopped, restarted, unchanged, settingsChanged, clientReplaced, muteCacheCleared } = report;
    // A value fixed in the file that the process's environment overrides changes nothing: say so where the host looks.
    const notice = shadowedNotice(shadowed);
    if (notice !== undefined) logger.warn({ shadowed: shadowed.map((key) => key.path) }, `${trigger}: ${notice}`);
    const summary = `config reloaded (${String(started.length)} started, ${String(stopped.length)} stopped, ${String(restarted.length)} restarted, ${String(unchanged.length)} unchanged; ${describeSettingsChanged(report)}${muteCacheCleared ? '; API key changed, mute cache cleared' : ''})${notice === undefined ? '' : `; ${notice}`}`;
    logger.info({ started, stopped, restarted, unchanged, settingsChanged, clientReplaced, muteCacheCleared }, `${trigger}: ${summary}`);
    logger.info(`${PRODUCT_NAME} running: ${describeListeners(sidecar.config, sidecar).join('; ')}`);
    // New keys or another address: what the old client learned was forgotten (ServiceHealth.forgetProblems), so ask
    // again now rather than when the next player speaks. Not awaited: the reload is done. A kept client whose calls
    // are paused after a 401 probes at once too: the host may have bound the key in the dashboard, then reloaded.
    if (clientReplaced || sidecar.client.probeCredentialsNow()) void checkCredentialsOnce(sidecar, logger, 'reload', stopping);
    return { result: 'success', summary };
  } catch (error) {
    if (!(error instanceof SidecarReloadError)) throw error;
    logger.error({ code: error.code }, `${trigger}: ${error.message}`);
    return { result: 'failed', error: error.message };
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

/** The run's logger, once made (it needs the config): the log file's write errors and a failed close are told there. */
interface RunLogger {
  logger?: Logger;
}

/** Where a part that fails to close is told: the run's logger once it exists, stderr before. */
function closeFailuresTo(context: CliContext, logTo: RunLogger): DisposalLogger {
  return {
    error: (object, message) => {
      if (logTo.logger !== undefined) logTo.logger.error(object, message);
      else context.stderr.write(`error: ${message}\n`);
    },
  };
}

/**
 * How a start that failed ends, told once everything it had opened is closed again: an invalid config and a data
 * directory another sidecar holds exit 2, a directory that cannot be used exit 1. Anything else (a sidecar that
 * could not start, a busy port, a bug) goes on to main(), which says it in one line.
 */
function refusedStart(error: unknown, context: CliContext): number {
  if (error instanceof ConfigError) return reportConfigError(context, error);
  if (error instanceof DataDirLockError) {
    // The core does not know config keys; the host is told which one moves the directory.
    context.stderr.write(`error: ${error.message}${error.code === 'locked' ? ' (The directory is reviews.dataDir in the config file.)' : ''}\n`);
    return error.code === 'locked' ? EXIT_USAGE : EXIT_REFUSED;
  }
  throw error;
}

/** Where startRun registers what it opens. */
interface RunCloses {
  /** The run's parts: a failed start and a stop unwind them in reverse. */
  readonly parts: DisposalStack;
  /** The log file: closed after the run's last line, so every line of the process is in it. */
  readonly logFile: DisposalStack;
}

/** What a started run serves its signals with. */
interface StartedRun {
  readonly sidecar: Sidecar;
  readonly logger: Logger;
  readonly operations: Operations;
  readonly notifier: Notifier;
  readonly reloadRequests: ReloadRequests;
  /** Aborted when a stop begins: a credentials check still waiting for GSA ends, and logs nothing about a closed client. */
  readonly stopping: AbortSignal;
}

/** The host's lines at start: the log file, unsafe permissions, backslash paths, the lock, the open-file limit. */
async function logRunStart(logger: Logger, config: BridgeConfig, loadedPath: string | null, logFile: RotatingLogFile | undefined, lock: DataDirLock): Promise<void> {
  if (logFile !== undefined) logger.info({ file: logFile.path }, `logging to ${logFile.path} too (log.file), rotated at ${config.log.maxBytes ?? DEFAULT_LOG_FILE_MAX_BYTES} bytes, ${config.log.maxFiles ?? DEFAULT_LOG_FILE_MAX_FILES} files kept`);
  for (const warning of await filePermissionWarnings({ configPath: loadedPath, secrets: collectSecrets(config), dataDir: config.reviews.dataDir })) {
    logger.warn(warning);
  }
  for (const warning of backslashPathWarnings(config)) logger.warn(warning);
  logger.info({ dataDir: lock.holder.dataDir }, `data directory ${lock.holder.dataDir} locked for this process (pid ${process.pid})`);
  await logOpenFileLimit(logger);
}

/**
 * The run's assembly: the config, the log file, the data directory's lock, the logger, then the parts that live as
 * long as the process (crash handlers, operations endpoints, notifications), the sidecar, and what serves it (the
 * control channel, the heap settler). Each registers its close on `closes` the moment it has started.
 */
async function startRun(configPath: string | undefined, pretty: boolean, context: CliContext, signals: SignalQueue<typeof RELOAD_REQUEST>, closes: RunCloses, logTo: RunLogger): Promise<StartedRun> {
  const { parts } = closes;
  const { config, path: loadedPath, sources } = await loadConfig({ path: configPath, env: context.env, requireFile: true });
  // log.file: a file that cannot be opened is a config error (exit 2) naming the key, before anything starts.
  const logFile = openLogFile(config, loadedPath, (error) => {
    // Not from inside the write that failed: the logger is busy with that line.
    queueMicrotask(() => logTo.logger?.error({ file: config.log.file, err: error.message }, `could not write the log file ${String(config.log.file)} (log.file); its lines still go to stderr`));
  });
  if (logFile instanceof ConfigError) throw logFile;
  if (logFile !== undefined) {
    closes.logFile.defer('log file', () => {
      logFile.close();
    });
  }
  // Two sidecars on one data directory (a systemd unit plus a manual start) would compact the journal under each
  // other: refused here, before a single file in it is opened. Exit 2: it is a configuration mistake, like a busy port.
  const lock = await DataDirLock.acquire(config.reviews.dataDir, { version: VERSION });
  parts.defer('data directory lock', () => lock.release());
  const logger = commandLogger(context, { level: config.log.level, secrets: collectSecrets(config), pretty, file: logFile });
  logTo.logger = logger;
  await logRunStart(logger, config, loadedPath, logFile, lock);

  // Operations: the endpoints, metrics and host log lines live as long as this process, across reloads; they read
  // the current sidecar through these sources. An error nobody caught is logged (redacted) and ends the process.
  // `sidecar` is the one value here that changes: undefined until the sidecar has started, as they start before it.
  let sidecar: Sidecar | undefined = undefined;
  parts.defer('crash handlers', installCrashHandlers({ logger: () => logger, context: () => ({ running: sidecar !== undefined }) }));
  const events = new BridgeEvents();
  // `mutes` reads who the verdicts showed muted: like the operations side, it listens to the events for as long as the
  // process runs, and is closed after the endpoints.
  const mutedPlayers = new MutedPlayers({ events });
  parts.defer('muted players', () => {
    mutedPlayers.close();
  });
  const operationsSources = sidecarOperationsSources(() => ({ sidecar, config }));
  const operations = await startOperations({ host: config.http.host, port: config.http.port, readiness: config.http.readiness, events, logger, sources: operationsSources }).catch(
    (error: unknown) => {
      // A busy http.port is main()'s one line and exit 2, like a busy adapter port.
      throw operationsListenError(error, config);
    },
  );
  // Closed after the drain: /healthz answers until it is over.
  parts.defer('operations endpoints', () => operations.close());
  // Webhooks told of state changes (notify): like operations, it lives across reloads and reads the current sidecar.
  const notifier = new Notifier({ config: config.notify, sources: operationsSources, events, logger });
  notifier.start();
  // A start that fails drops what is queued; a stop gave it its second beside the drain already (below).
  parts.defer('notifier', () => notifier.close(0));

  const running = await startSidecar(config, { logger, events, credentialSources: describeCredentialSources(sources, loadedPath) }).catch((error: unknown) => {
    // A listener that cannot bind is reported by main() as one line and exit 2.
    if (listenFailureMessage(error) !== undefined) throw error;
    logger.fatal({ err: error }, 'the sidecar could not start');
    throw new SidecarStartError(error);
  });
  sidecar = running;
  // The drain. Queued notifications get their second beside it, not after it, so a dead receiver adds nothing to
  // the 10 s; the data directory and its control channel are free as soon as it is over.
  parts.defer('sidecar', async () => {
    const notified = notifier.close();
    await stopWithin(running, logger);
    await lock.release();
    await notified;
  });
  operations.setPhase('running');
  // The adapters already run: the check holds nothing back. A refusal turns /readyz 503 the moment GSA answers.
  const stopping = new AbortController();
  void checkCredentialsOnce(running, logger, 'start', stopping.signal);
  parts.defer('credentials checks', () => {
    stopping.abort();
  });
  logger.info({ version: VERSION }, `${PRODUCT_NAME} running: ${describeListeners(config, running).join('; ')}`);
  // What the sidecar will spend, and with whom it shares it: a host sees a wrong window or a missing `shared` at once.
  logger.info(describeApiBudget(config));
  // `gsa-bridge reviews retry` while we run goes through us, to whichever outbox is current; `mutes` reads who the
  // verdicts showed muted; `reload` waits in the signal queue for its turn and is answered with what it did;
  // `player-mute` (a host's `gsa-bridge mute`) reaches every current bridge's mute cache at once.
  const reloadRequests = new ReloadRequests(() => {
    signals.post(RELOAD_REQUEST);
  }, logger);
  lock.serve(
    routeControl({
      retry: reviewsControlHandler(() => running.outbox),
      [MUTES_OP]: mutesControlHandler(() => mutedPlayers),
      [RELOAD_OP]: reloadControlHandler(() => reloadRequests.ask()),
      [PLAYER_MUTE_OP]: playerMuteControlHandler(() => running.bridges.values()),
    }),
  );
  if (signals.pending.includes('SIGHUP')) logger.info('SIGHUP arrived while starting: reloading the config now that the sidecar runs');
  // A burst's memory comes back once it is over (src/ops/heapSettler.ts).
  const heapSettler = new HeapSettler({ logger: logger.child({ component: 'memory' }) });
  heapSettler.start();
  parts.defer('heap settler', () => {
    heapSettler.stop();
  });
  return { sidecar: running, logger, operations, notifier, reloadRequests, stopping: stopping.signal };
}

/**
 * Serves SIGHUPs and reload requests, one at a time, until SIGTERM or SIGINT; then stops taking reloads and closes
 * every part of the run (the log file aside), the drain first.
 */
async function serve(run: StartedRun, parts: DisposalStack, signals: SignalQueue<typeof RELOAD_REQUEST>, configPath: string | undefined, context: CliContext): Promise<void> {
  const { sidecar, logger, operations, notifier, reloadRequests, stopping } = run;
  for (;;) {
    const signal = await signals.next();
    if (signal !== 'SIGHUP' && signal !== RELOAD_REQUEST) {
      // From here no reload is applied: `gsa-bridge reload` is refused (runOperations logs a SIGHUP as ignored).
      reloadRequests.stop();
      logger.info({ signal }, 'stopping: answering what is in flight and persisting the outbox');
      operations.setPhase('stopping');
      exitOnSecondStopSignal(signals, () => logger);
      await parts.close();
      return;
    }
    // The requests queued before this reload starts are answered by it (it reads the file after they asked); one
    // that comes while it runs posts the next.
    const answerAsked = signal === RELOAD_REQUEST ? reloadRequests.take() : undefined;
    const trigger = signal === RELOAD_REQUEST ? RELOAD_TRIGGER : 'SIGHUP';
    const outcome = await reload(sidecar, configPath, context, logger, stopping, trigger);
    if (outcome.result === 'success') notifier.reconfigure(sidecar.config.notify);
    operations.recordReload(outcome.result);
    answerAsked?.(outcome);
    logger.debug({ result: outcome.result }, `${trigger} handled`);
  }
}

export async function runCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(RUN_COMMAND, args);
  // Before the load: a parallel scavenge waits for helper threads that a busy host may not run for a while.
  scavengeOnMainThread();
  const { config: configPath, pretty } = options;
  // Signals are queued before anything slow (reading the config, the lock, the listeners), and the ones the entry
  // point held while the modules loaded are taken over: a SIGHUP or SIGTERM during start is applied once start
  // completes, not fatal. Any number of SIGHUPs before a reload is one reload.
  // A reload asked for through the control channel is queued here too, so it runs in turn with the SIGHUPs.
  const signals = new SignalQueue<typeof RELOAD_REQUEST>(['SIGTERM', 'SIGINT', 'SIGHUP'], { coalesce: ['SIGHUP', RELOAD_REQUEST], takeOverStartupSignals: true });
  const logTo: RunLogger = {};
  const closes: RunCloses = { parts: new DisposalStack({ logger: closeFailuresTo(context, logTo) }), logFile: new DisposalStack({ logger: closeFailuresTo(context, logTo) }) };
  closes.parts.defer('signal handlers', () => {
    signals.close();
  });
  const started = await closes.logFile
    .unwindOnFailure(() => closes.parts.unwindOnFailure(() => startRun(configPath, pretty, context, signals, closes, logTo)))
    .catch((error: unknown) => refusedStart(error, context));
  if (typeof started === 'number') return started;
  await closes.logFile.unwindOnFailure(() => serve(started, closes.parts, signals, configPath, context));
  started.logger.info('stopped');
  await closes.logFile.close();
  return EXIT_OK;
}
