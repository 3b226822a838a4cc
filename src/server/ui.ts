import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, forbidden, validationError } from '../errors.js';
import type { EventBus } from '../events.js';
import { streamEvents } from './event-stream.js';
import type { Invoke } from '../operations/invoke.js';
import { sessionCookie, type BrowserSessions } from './sessions.js';

/**
 * What the built renderer may load: itself, its own API, inline styles (MUI's emotion), data:
 * images, and call recordings it made into blob: URLs.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

export interface UiOptions {
  invoke: Invoke;
  events: EventBus;
  /** The built renderer (vite's output); the page is not served when it is missing. */
  rendererDir?: string;
  /** Login links and the sessions they open (browser mode). */
  sessions: BrowserSessions;
  /** Operations that take bodies over the server's 1 MiB (a suite's files), with their limit. */
  largeBodies?: { name: string; bodyLimit: number }[];
}

/**
 * The session cookie for this request's Host: HttpOnly, SameSite=Strict, and Secure when served
 * over TLS (a browser then never sends it over plain HTTP, where anyone on the path could read it).
 */
function cookieFor(req: FastifyRequest, value: string, ...more: string[]): string {
  const secure = req.protocol === 'https' ? ['Secure'] : [];
  const name = sessionCookie(req.headers.host ?? '');
  return [`${name}=${value}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', ...secure, ...more].join(
    '; ',
  );
}

/** Paths open without a key: the page and its assets (the API behind them still asks for one). */
export const isUiAssetPath = (path: string): boolean =>
  path === '/' || path === '/index.html' || path.startsWith('/assets/') || path === '/favicon.svg';

/**
 * The renderer in a browser (browser mode): one route to invoke any operation of the catalogue
 * by name (what the desktop app does over IPC), a stream of engine events, and the page itself.
 */
export async function registerUi(app: FastifyInstance, opts: UiOptions): Promise<void> {
  const invokeByName = async (name: string, req: FastifyRequest, reply: FastifyReply) => {
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body))
      throw validationError('The input must be a JSON object', [
        { path: '', message: 'must be a JSON object' },
      ]);
    const { status, data } = await opts.invoke(name, body, req.caller!);
    reply.code(status).send({ data });
  };
  app.post('/v1/operations/:name', (req, reply) =>
    invokeByName((req.params as { name: string }).name, req, reply),
  );
  // The router prefers a static path: these few take their larger bodies on the same URL.
  for (const { name, bodyLimit } of opts.largeBodies ?? [])
    app.post(`/v1/operations/${name}`, { bodyLimit }, (req, reply) =>
      invokeByName(name, req, reply),
    );

  app.post('/v1/login-links', (req, reply) => {
    // A login link opens a full session: an API key may ask for one, a workspace token may not.
    const caller = req.caller!;
    if (caller.kind !== 'api_key')
      throw forbidden('Login links need an API key, not a workspace token');
    // The session acts for this key, and ends when it is revoked.
    const base = `${req.protocol}://${req.headers.host ?? ''}`;
    reply.code(201).send({ url: `${base}/?token=${opts.sessions.issue(caller.keyId)}` });
  });

  app.post('/v1/logout', (req, reply) => {
    opts.sessions.end(req.headers.cookie, req.headers.host ?? '');
    reply
      .header('set-cookie', cookieFor(req, '', 'Max-Age=0'))
      .code(204)
      .send();
  });

  app.get('/v1/events', (req, reply) => {
    // Events are engine-wide, so a workspace token (scoped to one workspace) does not get them.
    if (req.caller!.kind === 'token')
      throw forbidden('Engine events need an API key, not a workspace token');
    reply.hijack();
    streamEvents(req.raw, reply.raw, opts.events);
  });

  const dir = opts.rendererDir;
  if (!dir || !existsSync(join(dir, 'index.html'))) {
    app.get('/', () => {
      throw new AppError(
        'ui_not_built',
        404,
        'The interface is not built: run `npm run build:renderer`, then start serve again. The API works without it.',
      );
    });
    return;
  }
  // The page holds no secret: it is served to anyone who may reach the port.
  const page = readFileSync(join(dir, 'index.html'), 'utf8');
  const sendPage = (req: FastifyRequest, reply: FastifyReply) => {
    const { token } = req.query as { token?: unknown };
    if (typeof token === 'string') {
      // A login link: spent here, whatever happens; a good one opens a session.
      const host = req.headers.host ?? '';
      const session = opts.sessions.redeem(token, host);
      if (session) reply.header('set-cookie', cookieFor(req, session));
      return reply.header('cache-control', 'no-store').redirect('/', 302);
    }
    return reply
      .header('content-security-policy', RENDERER_CSP)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page);
  };
  app.get('/', sendPage);
  app.get('/index.html', sendPage);
  await app.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    cacheControl: true,
    maxAge: '1d',
    immutable: true,
  });
}
