import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HOST, DEFAULT_PORT, defaultDataDir } from '../config.js';
import type { Engine } from '../engine.js';
import { AppError } from '../errors.js';
import type { TlsFiles } from '../server/app.js';
import type { AccessInvoke } from './access-store.js';
import { installProcessGuards } from '../process-guards.js';

// Every start of the command pays for what this file imports, whichever command runs. So the engine
// (fastify, every SDK, the whole store) and the other commands' modules are loaded only by the
// commands that use them: through tsx, `help` and usage errors then start on a sixth of the CPU,
// `secrets reset` on about half. The bundle `callbench` runs (bundle.mjs) keeps each dynamic
// import a chunk of its own, loaded the same way. Type imports cost nothing at run time.
const loadEngine = () => import('../engine.js');

const USAGE = `Usage: callbench <command> [options]

Commands:
  serve [--port N] [--host H] [--data-dir DIR] [--database URL] [--no-worker]
        [--tls-cert FILE --tls-key FILE | --insecure-http]
                                                 Start the engine and its local HTTP API; with
                                                 --database (or CALLBENCH_DATABASE_URL), a team
                                                 server on PostgreSQL (key: CALLBENCH_SECRET_KEY);
                                                 --no-worker leaves simulations to the workers.
                                                 On an address other than loopback it serves
                                                 HTTPS (PEM files, or CALLBENCH_TLS_CERT and
                                                 CALLBENCH_TLS_KEY), or plain HTTP behind a TLS
                                                 proxy with --insecure-http
  worker --database URL [--concurrency N]        Run a team server's simulations (N at once,
                                                 default 4); start as many as the load needs
  keys create [--label L]                        Create an API key (printed once)
  keys list                                      List API keys
  keys revoke <id>                               Revoke an API key
  workspaces [create <name>]                     List workspaces, or create one
  run <scenario id or name> [--workspace W] [--var name=value ...] [--runs N] [--wait] [--junit FILE] [--json]
                                                 Execute a scenario through the running app or serve
                                                 (key: --key or CALLBENCH_API_KEY; --url or CALLBENCH_URL);
                                                 exit 0 all passed, 1 some failed, 2 could not run;
                                                 --baseline <execution id|last> runs with its seed
                                                 and exits with the comparison's verdict;
                                                 --max-cost USD caps its spend (maxCostUsd):
                                                 what the cap stops is skipped
  suite export --dir D [--workspace W] [--exclude-tag T ...]
                                                 Write the workspace's suite as files into D,
                                                 removing the suite files there it did not write
  suite plan|apply --dir D [--workspace W] [--prune] [--secrets-file F]
                                                 Show, or apply, what the files in D change
                                                 (default workspace: the one named after the
                                                 suite, which apply creates); exit 0, 1 on
                                                 problems (file:line:column), 2 could not run
  suite run --dir D [--workspace W] [--scenario KEY ...] [--exclude-tag T ...]
            [--secrets-file F] [--junit FILE] [--json]
  run --suite D [the same options]               Apply the suite to its workspace, execute each
                                                 scenario (one execution per case row) and wait;
                                                 exit 0 all passed, 1 some failed, 2 could not run
  compare <baseline ids> <candidate ids> [--workspace W] [--json] [--junit FILE] [--markdown FILE]
          [--rescore-baseline]                   Compare executions (ids comma-separated, pooled):
                                                 rows worst first; exit 0, 1 regressed, 2 could
                                                 not compare
  calibration <scorecard> --workspace W [--min-kappa K] [--json]
                                                 How far each llm_judge metric's judge agrees
                                                 with people's labels; exit 0 all calibrated
                                                 (50+ labels, judge and rubric unchanged) with
                                                 kappa at least K (default 0.6), 1 when one is
                                                 not, 2 could not ask
  demo [--mode text|audio|both] [--json]         Run the built-in demo agent (no account, key or
                                                 model needed) through the running app or serve,
                                                 as run does; exit 0 when all passed
  secrets reset [--yes]                          The secret key is lost: delete the sealed secrets
                                                 (after confirmation) and list what to enter again
  --version                                      Print the version

Every command takes --data-dir DIR (default: CALLBENCH_DATA_DIR or ${defaultDataDir()}).
keys and workspaces take --database URL too, to act on a team server's database.`;

type Out = (line: string) => void;

/** This package's version, read at run time: the same file from the sources and from the bundle. */
const packageVersion = (): string =>
  (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

/** The built renderer: CALLBENCH_RENDERER_DIR, else dist/renderer of this checkout. */
const rendererDir = (): string =>
  process.env.CALLBENCH_RENDERER_DIR ??
  fileURLToPath(new URL('../../dist/renderer', import.meta.url));

function dataDirOf(values: { 'data-dir'?: string }): string {
  return values['data-dir'] ?? process.env.CALLBENCH_DATA_DIR ?? defaultDataDir();
}

/** Where the store is: a team server's PostgreSQL (with its shared key), or the data dir's file. */
async function storeOf(values: { 'data-dir'?: string; database?: string }) {
  const databaseUrl = values.database ?? (process.env.CALLBENCH_DATABASE_URL || undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new AppError(
      'usage',
      2,
      'The database must be a PostgreSQL URL: postgres://user:password@host:5432/database',
    );
  return {
    dataDir: dataDirOf(values),
    databaseUrl,
    secretKey: databaseUrl ? process.env.CALLBENCH_SECRET_KEY : undefined,
    leaseMs: leaseFromEnvironment(),
    outboundAllow: await outboundAllowFromEnvironment(),
  };
}

/**
 * CALLBENCH_OUTBOUND_ALLOW: comma-separated CIDRs and host names a team server's outbound
 * requests may reach although they are internal. An entry that is neither refuses the start.
 */
async function outboundAllowFromEnvironment(): Promise<string[] | undefined> {
  // Its variable's name is spelled here: the guard module loads undici, which only a start that
  // uses the variable should pay for.
  const text = process.env.CALLBENCH_OUTBOUND_ALLOW;
  if (!text) return undefined;
  const { OutboundGuard } = await import('../net/guard.js');
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    new OutboundGuard(entries);
  } catch (err) {
    throw new AppError('usage', 2, (err as Error).message);
  }
  return entries;
}

/**
 * CALLBENCH_LEASE_SECONDS: how long a team server's claimed simulation holds without renewal
 * (default 30): shorter takes a dead worker's simulations back sooner, at more renewal queries.
 */
function leaseFromEnvironment(): number | undefined {
  const text = process.env.CALLBENCH_LEASE_SECONDS;
  if (!text) return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 2 || seconds > 3600)
    throw new AppError('usage', 2, `CALLBENCH_LEASE_SECONDS must be 2 to 3600, got ${text}`);
  return seconds * 1000;
}

/** Addresses only this machine reaches: plain HTTP there crosses no network. */
const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** A PEM file of `serve --tls-*`, or one line saying why it cannot be read. */
function readPem(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new AppError('bad_tls', 2, `Cannot read the TLS ${what} ${file} (${why})`);
  }
}

/**
 * How `serve` answers on `host`: HTTPS with the certificate and key given, or plain HTTP, which
 * leaves this machine only with --insecure-http (a TLS proxy in front does the encryption).
 */
function tlsOf(
  values: { 'tls-cert'?: string; 'tls-key'?: string; 'insecure-http'?: boolean },
  host: string,
): TlsFiles | undefined {
  const certFile = values['tls-cert'] ?? (process.env.CALLBENCH_TLS_CERT || undefined);
  const keyFile = values['tls-key'] ?? (process.env.CALLBENCH_TLS_KEY || undefined);
  if (values['insecure-http'] && (certFile || keyFile))
    throw new AppError('usage', 2, '--insecure-http serves plain HTTP: leave out the TLS files');
  if (!certFile || !keyFile) {
    if (certFile || keyFile)
      throw new AppError('usage', 2, 'Give both --tls-cert FILE and --tls-key FILE (PEM)');
    if (!isLoopback(host) && !values['insecure-http'])
      throw new AppError(
        'plain_http_refused',
        2,
        `Refusing to serve plain HTTP on ${host}: give --tls-cert FILE --tls-key FILE, or --insecure-http behind a TLS proxy`,
      );
    return undefined;
  }
  const tls = { cert: readPem(certFile, 'certificate'), key: readPem(keyFile, 'key') };
  try {
    createSecureContext(tls);
  } catch (err) {
    throw new AppError(
      'bad_tls',
      2,
      `The TLS certificate ${certFile} and key ${keyFile} cannot be used: ${(err as Error).message}`,
    );
  }
  return tls;
}

const STORE_OPTIONS = {
  'data-dir': { type: 'string' },
  database: { type: 'string' },
} as const;

async function serve(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'no-worker': { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'insecure-http': { type: 'boolean' },
      ...STORE_OPTIONS,
    },
  });
  const port = Number(values.port ?? process.env.CALLBENCH_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new AppError('bad_port', 2, `--port must be 0 to 65535, got ${values.port}`);
  const host = values.host ?? process.env.CALLBENCH_HOST ?? DEFAULT_HOST;
  // Refused before anything opens: an API key must never cross a network in clear by default.
  const tls = tlsOf(values, host);
  installProcessGuards((m) => console.error(m));
  const where = await storeOf(values);
  if (values['no-worker'] && !where.databaseUrl)
    throw new AppError(
      'bad_option',
      2,
      '--no-worker is for a team server (--database): on its own, this engine runs the simulations',
    );
  const { createEngine } = await loadEngine();
  const engine = createEngine({
    ...where,
    envApiKey: process.env.CALLBENCH_API_KEY || undefined,
    tls,
    llmDefault: llmFromEnvironment(),
    runSimulations: !values['no-worker'],
    publicHosts: process.env.CALLBENCH_PUBLIC_HOSTS?.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    syncIntervalMinutes: process.env.CALLBENCH_SYNC_MINUTES
      ? Number(process.env.CALLBENCH_SYNC_MINUTES)
      : undefined,
    log: {
      info: (m) => out(m),
      error: (m, err) => console.error(...(err === undefined ? [m] : [m, err])),
    },
  });
  // Listened for before the first line that says the server is up: a service manager (or a test)
  // may send SIGTERM as soon as it reads it, and with no listener yet that would kill the
  // process outright instead of stopping it in good order.
  const stopped = untilStopped();
  const { firstApiKey } = await engine.start();
  // Headless, an OS notification is a line in the log.
  engine.events.subscribe((e) => {
    if (e.type === 'notification') out(`[notification] ${String(e.data.title)}`);
  });
  // The same interface as the desktop app, in a browser, opened by a one-time login link.
  let url: string;
  try {
    url = await engine.listen(port, host, { rendererDir: rendererDir() });
  } catch (err) {
    await engine.stop();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new AppError(
        'port_busy',
        1,
        `Port ${port} on ${host} is already in use (another Callbench, or another program); start with --port N, or --port 0 for any free port`,
      );
    throw err;
  }
  // Made before the lines are printed: whoever reads "listening on" may stop us at once, and
  // expects the lines that go with it to be there.
  const login = await loginLine(engine);
  if (firstApiKey) {
    out(`Created your first API key (shown only now, keep it): ${firstApiKey}`);
  }
  out(`Callbench engine (${engine.storeDescription}) listening on ${url}`);
  if (!tls && !isLoopback(host))
    out(`Plain HTTP on ${host} (--insecure-http): only a TLS proxy in front should reach it.`);
  out(login);
  await stopWhenAsked(engine, stopped, out);
  return 0;
}

/** The line with the login link printed at start, or why there is none. */
async function loginLine(engine: Engine): Promise<string> {
  try {
    return `Open ${await engine.loginUrl()} in a browser for the interface (a one-time login link, valid 15 minutes; POST /v1/login-links with an API key makes another).`;
  } catch (err) {
    if (err instanceof AppError) return `No login link: ${err.message}`;
    throw err;
  }
}

/** The default model of every role, from CALLBENCH_LLM_BASE_URL, _API_KEY and _MODEL. */
function llmFromEnvironment() {
  return process.env.CALLBENCH_LLM_API_KEY && process.env.CALLBENCH_LLM_MODEL
    ? {
        kind: 'openai' as const,
        baseUrl: process.env.CALLBENCH_LLM_BASE_URL || undefined,
        apiKey: process.env.CALLBENCH_LLM_API_KEY,
        model: process.env.CALLBENCH_LLM_MODEL,
      }
    : null;
}

/**
 * Resolves with the signal that asks the process to stop (Ctrl-C, or a service manager's SIGTERM).
 * A second one, while the stop waits, ends the process at once, with the code a signal gives.
 */
const untilStopped = () =>
  new Promise<NodeJS.Signals>((resolve) => {
    const now = (signal: NodeJS.Signals) => process.exit(signal === 'SIGINT' ? 130 : 143);
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      process.once('SIGINT', now).once('SIGTERM', now);
      resolve(signal);
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });

/**
 * Stops the engine once asked to, saying so: with simulations in flight, what the stop waits for
 * (their turns end at once, and they run again at the next start, but an ending being scored or
 * recorded is let finish), and how not to wait.
 */
async function stopWhenAsked(engine: Engine, stopped: Promise<NodeJS.Signals>, out: Out) {
  const signal = await stopped;
  const count = engine.simulationsInFlight();
  out(
    count === 0
      ? `Stopping (${signal})`
      : `Stopping (${signal}): waiting for ${count} simulation${count === 1 ? '' : 's'} in flight (Ctrl+C again to stop now)`,
  );
  await engine.stop();
  out('Stopped');
}

/** A team server's worker: runs simulations from the shared queue until stopped. */
async function worker(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { concurrency: { type: 'string' }, ...STORE_OPTIONS },
  });
  const where = await storeOf(values);
  if (!where.databaseUrl)
    throw new AppError(
      'bad_option',
      2,
      'A worker works for a team server: give its database with --database URL or CALLBENCH_DATABASE_URL',
    );
  const concurrency = Number(values.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new AppError('bad_option', 2, `--concurrency must be 1 to 64, got ${values.concurrency}`);
  installProcessGuards((m) => console.error(m));
  const { createEngine } = await loadEngine();
  const engine = createEngine({
    ...where,
    worker: true,
    workerConcurrency: concurrency,
    llmDefault: llmFromEnvironment(),
    log: {
      info: (m) => out(m),
      error: (m, err) => console.error(...(err === undefined ? [m] : [m, err])),
    },
  });
  const stopped = untilStopped(); // before the line that says it runs (see serve)
  await engine.start();
  out(
    `Callbench worker (${engine.storeDescription}) running up to ${concurrency} simulations at once`,
  );
  await stopWhenAsked(engine, stopped, out);
  return 0;
}

/** Short commands share the store with a running app: same operations, no second engine. */
async function withStore<T>(
  where: Awaited<ReturnType<typeof storeOf>>,
  fn: (invoke: AccessInvoke) => Promise<T>,
): Promise<T> {
  const { withAccessStore } = await import('./access-store.js');
  return withAccessStore(where, fn);
}

async function keys(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { label: { type: 'string' }, ...STORE_OPTIONS },
  });
  const [sub, id] = positionals;
  return withStore(await storeOf(values), async (invoke) => {
    if (sub === 'create') {
      const { data } = await invoke('keys.create', { label: values.label });
      const { key } = data as { key: { id: string; key: string } };
      out(key.key);
      console.error(`(API key ${key.id}; shown only now)`);
    } else if (sub === 'list') {
      const { data } = await invoke('keys.list', {});
      for (const k of (
        data as {
          keys: {
            id: string;
            label: string | null;
            prefix: string;
            created_at: string;
            revoked_at: string | null;
          }[];
        }
      ).keys) {
        out(
          `${k.id}\t${k.prefix}…\t${k.label ?? ''}\t${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`,
        );
      }
    } else if (sub === 'revoke' && id) {
      await invoke('keys.revoke', { key_id: id });
      out(`revoked ${id}`);
    } else {
      throw new AppError(
        'usage',
        2,
        'Usage: callbench keys create [--label L] | keys list | keys revoke <id>',
      );
    }
    return 0;
  });
}

async function workspaces(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: STORE_OPTIONS,
  });
  return withStore(await storeOf(values), async (invoke) => {
    if (positionals[0] === 'create') {
      const name = positionals.slice(1).join(' ');
      const { data } = await invoke('workspaces.create', { name });
      const { workspace } = data as { workspace: { id: string; name: string } };
      out(`${workspace.id}\t${workspace.name}`);
      return 0;
    }
    const { data } = await invoke('workspaces.list', {});
    for (const w of (data as { workspaces: { id: string; name: string; created_at: string }[] })
      .workspaces) {
      out(`${w.id}\t${w.name}\t${w.created_at}`);
    }
    return 0;
  });
}

export async function main(argv: string[], out: Out = (l) => console.log(l)): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, out);
      case 'worker':
        return await worker(rest, out);
      case 'keys':
        return await keys(rest, out);
      case 'workspaces':
        return await workspaces(rest, out);
      case 'run':
        // `run --suite D` is `suite run --dir D`: its own module, loaded only then.
        if (rest.some((a) => a === '--suite' || a.startsWith('--suite=')))
          return await (await import('./suite-run.js')).suiteRun(rest, out);
        return await (await import('./run.js')).run(rest, out);
      case 'suite':
        return await (await import('./suite.js')).suite(rest, out);
      case 'compare':
        return await (await import('./compare.js')).compare(rest, out);
      case 'calibration':
        return await (await import('./calibration.js')).calibration(rest, out);
      case 'demo':
        return await (await import('./demo.js')).demo(rest, out);
      case 'secrets':
        return await (await import('./secrets.js')).secrets(rest, out, dataDirOf);
      case '--version':
      case 'version':
        out(packageVersion());
        return 0;
      case undefined:
      case 'help':
      case '--help':
        out(USAGE);
        return command ? 0 : 2;
      default:
        console.error(`Unknown command '${command}'.\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`callbench: ${err.message}`);
      const details = err.details as { path: string; message: string }[] | undefined;
      if (Array.isArray(details))
        for (const d of details) console.error(`  ${d.path}: ${d.message}`);
      return err.status === 2 ? 2 : 1;
    }
    console.error('callbench:', (err as Error).message);
    return 1;
  }
}
