import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppError, forbidden, unauthorized, validationError } from '../errors.js';
import { assertShallow } from '../json-depth.js';
import type { Invoke } from '../operations/invoke.js';
import { FileAnswer, parseRange } from '../operations/file-answer.js';
import type { Caller, Operation } from '../operations/types.js';
import type { Authenticate } from './auth.js';
import type { Logger } from '../kernel/logger.js';
import { toAppError } from '../kernel/to-app-error.js';
import { failure, success } from './envelope.js';
import { buildOpenApi } from './openapi.js';
import { isUiAssetPath, registerUi, type UiOptions } from './ui.js';

export interface ServerOptions {
  catalogue: Operation[];
  invoke: Invoke;
  authenticate: Authenticate;
  host: string;
  /** Further `name:port` a browser may address us by (a team server's names behind a proxy). */
  publicHosts?: string[];
  log: Logger;
  /** Browser mode: the renderer, its operation route and the event stream. */
  ui?: Omit<UiOptions, 'invoke'>;
  /** HTTPS with this PEM certificate (chain) and key; plain HTTP without. */
  tls?: TlsFiles;
}

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** An operation answered without a credential (HttpBinding.public). */
    public?: boolean;
  }
}

const PUBLIC_PATHS = new Set(['/openapi.json', '/favicon.ico']);

/** Who calls a public operation (no credential is asked): its handler answers anyone the same. */
const ANONYMOUS: Caller = { kind: 'local', user: { id: 'anonymous', name: 'anonymous' } };

/** The app's icon, which browsers ask for on every page; read once, absent in a bare bundle. */
const favicon = (() => {
  let bytes: Buffer | null | undefined;
  return (): Buffer | null => {
    if (bytes === undefined) {
      try {
        bytes = readFileSync(new URL('../../resources/icon.png', import.meta.url));
      } catch {
        bytes = null;
      }
    }
    return bytes;
  };
})();

/** Hosts a browser may address us by. Anything else is refused, so DNS rebinding cannot reach us. */
function allowedHosts(host: string, port: number, more: string[] = []): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...more]);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host))
    hosts.add(`${host.includes(':') ? `[${host}]` : host}:${port}`);
  return hosts;
}

/** A JSON body: empty is "no body"; malformed JSON, or nesting past the limit, is a 400. */
function parseJsonBody(text: string, done: (err: Error | null, body?: unknown) => void): void {
  if (text.trim() === '') return done(null, undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return done(
      new AppError(
        'invalid_json',
        400,
        `The request body is not valid JSON: ${(err as Error).message}`,
      ),
      undefined,
    );
  }
  try {
    assertShallow(parsed);
  } catch (err) {
    return done(err as AppError, undefined);
  }
  done(null, parsed);
}

const STATE_CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A state change made with a session cookie must be JSON: a form, an <img> or a bodiless fetch
 * from another page cannot send that type without a CORS preflight, which we never grant.
 */
function assertJsonStateChange(req: FastifyRequest): void {
  if (!STATE_CHANGES.has(req.method)) return;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new AppError(
      'unsupported_media_type',
      415,
      'A request made with a session cookie that changes anything must send Content-Type: application/json (an empty body is fine)',
    );
}

/**
 * Host and origin allowlist, then the bearer credential (or a login session); throws the error to
 * answer. A bearer credential is looked up in the store: that check answers a promise.
 */
function admit(
  req: FastifyRequest,
  opts: ServerOptions,
  hosts: Set<string>,
): Promise<void> | undefined {
  const host = req.headers.host ?? '';
  if (!hosts.has(host))
    throw forbidden(
      `Host '${host}' is not accepted; address the API as http://127.0.0.1:PORT or http://localhost:PORT`,
    );
  const origin = req.headers.origin;
  // `Origin: null` (a sandboxed frame, a file: page, a redirect chain) is no origin of ours.
  if (origin && !hosts.has(origin.replace(/^https?:\/\//, ''))) {
    throw forbidden('Cross-origin requests are not accepted');
  }
  const path = req.url.split('?')[0]!;
  if (PUBLIC_PATHS.has(path) || (opts.ui && isUiAssetPath(path))) return;
  if (req.routeOptions.config.public) {
    req.caller = ANONYMOUS;
    return;
  }
  const header = req.headers.authorization;
  // Browser mode: a session cookie from a login link, bound to the Host it was opened on.
  const session = header ? null : opts.ui?.sessions.callerOf(req.headers.cookie, host);
  if (session) {
    assertJsonStateChange(req);
    return session.then((caller) => {
      req.caller = caller;
    });
  }
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw unauthorized('Send Authorization: Bearer <API key or workspace access token>');
  return opts.authenticate(match[1]!).then((caller) => {
    if (!caller)
      throw unauthorized(
        'The credential is not a valid API key or workspace access token (revoked, or mistyped?)',
      );
    req.caller = caller;
  });
}

/** An operation's input from a request: its query, body fields and path parameters in one object. */
function inputOf(op: Operation, req: FastifyRequest): Record<string, unknown> {
  const params = req.params as Record<string, string>;
  const query = req.query as Record<string, unknown>;
  const body = req.body;
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw validationError('The request body must be a JSON object', [
      { path: '', message: 'must be a JSON object' },
    ]);
  }
  const bodyFields = (op.body ? body : undefined) as Record<string, unknown> | undefined;
  const clash = Object.keys(bodyFields ?? {}).filter((k) => k in op.params || k in op.query);
  if (clash.length) {
    throw validationError(
      `Not a body field: ${clash.join(', ')}`,
      clash.map((path) => ({ path, message: 'is not a field of this resource' })),
    );
  }
  return { ...query, ...bodyFields, ...params };
}

/** A file answer as bytes, whole or the one range asked for. */
function sendFile(req: FastifyRequest, reply: FastifyReply, file: FileAnswer) {
  const range = parseRange(req.headers.range, file.size);
  reply.header('accept-ranges', 'bytes').type(file.contentType);
  if (range === 'unsatisfiable')
    return reply.code(416).header('content-range', `bytes */${file.size}`).send();
  if (!range) return reply.header('content-length', file.size).send(file.read());
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
    .header('content-length', range.end - range.start + 1)
    .send(file.read(range));
}

/** Each operation with an HTTP binding as its route (a public one answered without a credential). */
function routeOperations(app: FastifyInstance, opts: ServerOptions): void {
  for (const op of opts.catalogue) {
    if (!op.http) continue;
    app.route({
      method: op.http.method,
      url: op.http.path,
      ...(op.http.bodyLimit && { bodyLimit: op.http.bodyLimit }),
      config: { public: op.http.public === true },
      handler: async (req, reply) => {
        const { status, data } = await opts.invoke(op.name, inputOf(op, req), req.caller!, {
          binary: true,
        });
        if (data instanceof FileAnswer) return sendFile(req, reply, data);
        reply.code(status).send(success(req.url, data));
      },
    });
  }
}

export function buildServer(opts: ServerOptions): FastifyInstance {
  const common = {
    bodyLimit: 1024 * 1024,
    logger: false,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  };
  // Both kinds answer the same routes; only the socket differs, so one type serves for both.
  const app = (
    opts.tls
      ? Fastify({ ...common, https: { cert: opts.tls.cert, key: opts.tls.key } })
      : Fastify(common)
  ) as FastifyInstance;
  let hosts: Set<string> | null = null;
  // A request answered after the close began (a long poll the engine's stop ended) leaves its
  // connection idle in keep-alive, which the close then waits out (72 s): idle ones are closed
  // as they appear, until the server is closed.
  app.addHook('preClose', (done) => {
    const sweep = setInterval(() => app.server.closeIdleConnections(), 25).unref();
    app.server.once('close', () => clearInterval(sweep));
    done();
  });

  // JSON is the only body we take: anything else is a 415.
  app.removeAllContentTypeParsers();
  // An empty body is "no body" (curl -X POST without -d); malformed JSON is a 400 that says where.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
    parseJsonBody(body as string, done),
  );

  const hostsAllowed = (): Set<string> =>
    (hosts ??= allowedHosts(
      opts.host,
      (app.server.address() as { port: number }).port,
      opts.publicHosts,
    ));
  // A callback hook, not an async one: no promise for requests that need no credential lookup.
  app.addHook('onRequest', (req, _reply, done) => {
    let lookup: Promise<void> | undefined;
    try {
      lookup = admit(req, opts, hostsAllowed());
    } catch (err) {
      return done(err as Error);
    }
    if (!lookup) return done();
    lookup.then(
      () => done(),
      (err: unknown) => done(err as Error),
    );
  });

  app.get('/openapi.json', (_req, reply) => reply.send(buildOpenApi(opts.catalogue)));
  app.get('/favicon.ico', (_req, reply) => {
    const icon = favicon();
    if (!icon) return reply.code(204).send();
    return reply.type('image/png').header('cache-control', 'max-age=86400').send(icon);
  });
  const ui = opts.ui;
  if (ui)
    void app.register(async (instance) =>
      registerUi(instance, {
        ...ui,
        invoke: opts.invoke,
        largeBodies: opts.catalogue.flatMap((op) =>
          op.http?.bodyLimit ? [{ name: op.name, bodyLimit: op.http.bodyLimit }] : [],
        ),
      }),
    );

  routeOperations(app, opts);

  app.setNotFoundHandler((req, reply) => {
    const err = new AppError(
      'not_found',
      404,
      `There is no endpoint ${req.method} ${req.url.split('?')[0]}`,
    );
    reply.code(404).send(failure(req.url, err));
  });

  app.setErrorHandler((err, req, reply) => {
    const { error, unexpected } = toAppError(err, req.id, req.routeOptions.bodyLimit);
    if (unexpected)
      opts.log.error(`request ${req.id} ${req.method} ${req.url.split('?')[0]} failed`, err);
    reply.code(error.status).send(failure(req.url, error));
  });

  return app;
}
