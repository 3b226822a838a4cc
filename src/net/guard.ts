import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { Agent as HttpAgent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { BlockList, connect as netConnect, isIP, Socket, type NetConnectOpts } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { buildConnector } from 'undici';

/**
 * A team server's outbound requests (tools, OAuth token URLs, agents over HTTP and WebSocket,
 * webhooks, models, speech) never reach internal addresses: loopback, private, link-local and
 * cloud metadata. Anyone with an API key can point a tool at a URL and read the answer through
 * tools.test, so without this a key would read the machine's cloud role credentials or the
 * services beside the database. The check is made where the connection is made, on the address
 * it goes to: a name that resolves to 127.0.0.1 is refused like 127.0.0.1, and every redirect hop
 * opens its own connection, so every hop is checked. The desktop and a SQLite `serve` are not
 * guarded: there, local APIs are what the user means to call.
 */

/** The variable that lets chosen addresses and names through. */
export const ALLOW_VARIABLE = 'CALLBENCH_OUTBOUND_ALLOW';

/** What each internal range is called in a refusal, most specific first. */
const INTERNAL: [kind: string, cidrs: string[]][] = [
  [
    'metadata',
    [
      '169.254.169.254/32', // AWS, GCP, Azure, OpenStack
      '169.254.170.2/32', // AWS ECS task credentials
      '100.100.100.200/32', // Alibaba Cloud
      '192.0.0.192/32', // Oracle Cloud
      'fd00:ec2::254/128', // AWS over IPv6
    ],
  ],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  // 0.0.0.0 reaches the machine itself on Linux.
  ['unspecified', ['0.0.0.0/8', '::/128']],
  [
    'private',
    ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7', 'fec0::/10'],
  ],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
];

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** Adds `a.b.c.d/n`, `x::/n` or a single address; false when the text is none of them. */
function addRange(list: BlockList, text: string): boolean {
  const [address = '', bits, ...rest] = text.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
  if (prefix < 0 || prefix > max) return false;
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return true;
}

const RANGES = INTERNAL.map(([kind, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) addRange(list, cidr);
  return { kind, list };
});

/** A request refused for the address it would connect to; its message is what users read. */
export class BlockedAddress extends Error {
  readonly code = 'ERR_CALLBENCH_BLOCKED_ADDRESS';
  constructor(
    readonly address: string,
    readonly kind: string,
  ) {
    super(
      `${address} is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address; team servers do not reach internal addresses unless ${ALLOW_VARIABLE} lists them`,
    );
  }
}

/** The BlockedAddress behind an error, however the client wrapped it (axios, the model SDKs). */
export function blockedBy(err: unknown): BlockedAddress | null {
  let e = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof BlockedAddress) return e;
    e = e.cause;
  }
  return null;
}

/** Host names as the allow list holds them: lower case, without a final dot or brackets. */
const normalHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;

/** Which internal addresses one engine refuses, and which of them it lets through. */
export class OutboundGuard {
  private readonly allowed = new BlockList();
  private readonly hosts = new Set<string>();

  /** `allow`: CIDRs, single addresses and host names; an entry that is none of them throws. */
  constructor(readonly allow: readonly string[] = []) {
    for (const raw of allow) {
      const entry = raw.trim();
      if (addRange(this.allowed, entry)) continue;
      const host = normalHost(entry);
      if (!HOST_NAME.test(host) || /^[\d.]+$/.test(host))
        throw new Error(
          `${ALLOW_VARIABLE}: "${entry}" is neither a CIDR (10.0.0.0/8, fd00::/8), an address nor a host name`,
        );
      this.hosts.add(host);
    }
  }

  /** Whether a name is let through whatever it resolves to. */
  allowsHost(host: string): boolean {
    return this.hosts.has(normalHost(host));
  }

  /** Why a connection to `address` is refused, or null when it may go. */
  refusal(address: string): BlockedAddress | null {
    const family = familyOf(address);
    const internal = RANGES.find((range) => range.list.check(address, family));
    if (!internal || this.allowed.check(address, family)) return null;
    return new BlockedAddress(address, internal.kind);
  }
}

/**
 * The guards of the engines running in this process; the newest applies. A team server's process
 * runs one engine (serve, worker); tests may start several with the same allowance.
 */
const active: OutboundGuard[] = [];

/**
 * Counts changes of the guard in force. A kept-alive connection was checked under the guard of
 * its day: pools key their connections by it, so none is reused under another guard.
 */
let generation = 0;
export const guardGeneration = (): number => generation;

/** Puts a guard in force for this process's outbound connections; answers how to lift it. */
export function guardOutbound(guard: OutboundGuard): () => void {
  active.push(guard);
  generation++;
  return () => {
    const at = active.lastIndexOf(guard);
    if (at < 0) return;
    active.splice(at, 1);
    generation++;
  };
}

/**
 * Puts an engine's guard in force, as its options say: a team server (databaseUrl) refuses
 * internal addresses unless told otherwise; the desktop and a SQLite serve do not. Answers how to
 * lift it, or null when there is none. An invalid allow entry throws.
 */
export function guardOutboundFor(options: {
  databaseUrl?: string;
  outboundGuard?: boolean;
  outboundAllow?: string[];
}): (() => void) | null {
  const on = options.outboundGuard ?? Boolean(options.databaseUrl);
  return on ? guardOutbound(new OutboundGuard(options.outboundAllow)) : null;
}

/** The guard in force, or null (the desktop, a SQLite serve). */
export const outboundGuard = (): OutboundGuard | null => active[active.length - 1] ?? null;

/**
 * The allow list of the guard in force (null: none), for threads of this process: they have
 * module state of their own, so it travels with their work (see useOutboundGuard).
 */
export const outboundGuardAllowList = (): string[] | null => {
  const guard = outboundGuard();
  return guard ? [...guard.allow] : null;
};

let threadGuard: { key: string; release: () => void } | null = null;

/** In a worker thread: puts in force the guard its parent runs with (null: none). */
export function useOutboundGuard(allow: string[] | null): void {
  const key = JSON.stringify(allow);
  if (threadGuard?.key === key) return;
  threadGuard?.release();
  threadGuard = allow ? { key, release: guardOutbound(new OutboundGuard(allow)) } : null;
}

/** Why a connection to this host, as written (an IP literal is connected to without a lookup), is refused. */
function literalRefusal(host: string | null | undefined): BlockedAddress | null {
  const guard = outboundGuard();
  const bare = normalHost(String(host ?? ''));
  return guard && isIP(bare) ? guard.refusal(bare) : null;
}

/**
 * The refusal a request to `url` would meet now, its host resolved as a connection resolves it;
 * null when it may go (or the name does not resolve: that is the request's own failure). For
 * refusing a URL when it is given, before any request; the connection is checked again anyway.
 */
export function blockedUrl(url: string): Promise<BlockedAddress | null> {
  let host: string;
  try {
    host = normalHost(new URL(url).hostname);
  } catch {
    return Promise.resolve(null);
  }
  if (!outboundGuard()) return Promise.resolve(null);
  if (isIP(host)) return Promise.resolve(literalRefusal(host));
  return new Promise((resolve) =>
    guardedLookup(host, { all: true }, (err) => resolve(blockedBy(err))),
  );
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * dns.lookup for sockets, refusing a name when any of its addresses is internal (unless the name
 * or the address is allowed). Node calls it for host names only; literals are checked before.
 */
export function guardedLookup(
  hostname: string,
  options: { family?: number | string; hints?: number; all?: boolean },
  callback: LookupCallback,
): void {
  const all: LookupAllOptions = { ...(options as LookupAllOptions), all: true };
  dnsLookup(hostname, all, (err, addresses) => {
    if (err) return callback(err, options.all ? [] : '', 0);
    const guard = outboundGuard();
    if (guard && !guard.allowsHost(hostname))
      for (const { address } of addresses) {
        const refused = guard.refusal(address);
        if (refused) return callback(refused, options.all ? [] : '', 0);
      }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    callback(null, first?.address ?? '', first?.family ?? 4);
  });
}

/** A socket that fails with `err` as soon as someone listens: what a refused connection answers. */
function refusedSocket(err: Error): Socket {
  const socket = new Socket();
  process.nextTick(() => socket.destroy(err));
  return socket;
}

type ConnectOptions = NetConnectOpts & ConnectionOptions & { host?: string | null };

/**
 * net.connect or tls.connect through the guard: an internal literal fails at once, a name is
 * resolved by guardedLookup. For ws's `createConnection` option, and the agents below.
 */
export function guardedConnection(options: ConnectOptions, secure: boolean): Socket {
  const refused = literalRefusal(options.host);
  if (refused) return refusedSocket(refused);
  // `path` would be taken for a Unix socket (http passes the request's path along).
  const guarded = { ...options, path: undefined, lookup: guardedLookup } as ConnectOptions;
  if (!secure) return netConnect(guarded);
  const servername = options.servername ?? (isIP(options.host ?? '') ? undefined : options.host);
  return tlsConnect({ ...guarded, ...(servername ? { servername } : {}) });
}

/** A WebSocket's (ws) connection options for `url`: its sockets made through the guard. */
export const guardedSocketOptions = (url: string) => ({
  createConnection: (options: ClientRequestArgs) =>
    guardedConnection(options as ConnectOptions, /^wss:/i.test(url)),
});

/** Keep-alive as Node's global agents keep it. */
const KEEP_ALIVE: AgentOptions = { keepAlive: true, scheduling: 'lifo', timeout: 5_000 };

type Oncreate = (err: Error | null, stream: Duplex) => void;

/** An http.Agent whose connections go through the guard (axios and every hop it follows). */
export class GuardedHttpAgent extends HttpAgent {
  constructor() {
    super(KEEP_ALIVE);
  }
  override createConnection(options: ClientRequestArgs): Duplex {
    return guardedConnection(options as ConnectOptions, false);
  }
  override getName(options?: ClientRequestArgs): string {
    return `${super.getName(options)}:${generation}`;
  }
}

/** The https.Agent counterpart: Node's own TLS handling (sessions, SNI), the guard's lookup. */
export class GuardedHttpsAgent extends HttpsAgent {
  constructor() {
    super(KEEP_ALIVE);
  }
  override createConnection(
    options: RequestOptions,
    callback?: Oncreate,
  ): Duplex | null | undefined {
    const refused = literalRefusal(options.host);
    if (refused) return refusedSocket(refused);
    return super.createConnection({ ...options, lookup: guardedLookup }, callback);
  }
  override getName(options?: RequestOptions): string {
    return `${super.getName(options)}:${generation}`;
  }
}

/**
 * undici's connector through the guard (the exchange's pool: tools, providers, models). `hostname`
 * is the URL's, an IPv6 literal in brackets.
 */
export function guardedConnector(timeout: number): buildConnector.connector {
  const connect = buildConnector({ timeout, lookup: guardedLookup });
  return (options, callback) => {
    const refused = literalRefusal(options.hostname);
    if (refused) queueMicrotask(() => callback(refused, null));
    else connect(options, callback);
  };
}
