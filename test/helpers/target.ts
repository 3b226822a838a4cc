import { handled } from './handled.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface Target {
  url: string;
  /** Requests per path. */
  hits: Map<string, number>;
  /** Knobs the tests turn: how often /flaky fails first, which OAuth token the resource accepts. */
  state: {
    flakyFailures: number;
    flakyStatus: number;
    tokenLifetimeSec: number;
    revokedTokens: Set<string>;
  };
  last: {
    headers: IncomingMessage['headers'];
    query: Record<string, string>;
    body: unknown;
    method: string;
    path: string;
  } | null;
  /** When each /slow request arrived and was answered, on the target's clock (performance.now()). */
  slowSpans: { startMs: number; endMs: number }[];
  stop(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A real HTTP server on 127.0.0.1 that plays every kind of tool target the runtime must handle. */
export async function startTarget(): Promise<Target> {
  const hits = new Map<string, number>();
  const state = {
    flakyFailures: 0,
    flakyStatus: 503,
    tokenLifetimeSec: 3600,
    revokedTokens: new Set<string>(),
  };
  let tokenSeq = 0;
  const target: Target = {
    url: '',
    hits,
    state,
    last: null,
    slowSpans: [],
    stop: async () => {},
  };

  const server = createServer(
    handled(async (req, res) => {
      const url = new URL(req.url!, 'http://x');
      const path = url.pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      let raw = '';
      for await (const chunk of req) raw += chunk;
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        // form bodies stay text
      }
      target.last = {
        headers: req.headers,
        query: Object.fromEntries(url.searchParams),
        body,
        method: req.method!,
        path,
      };
      const auth = req.headers.authorization ?? '';

      switch (true) {
        case path === '/echo':
          return json(res, 200, {
            method: req.method,
            path,
            query: Object.fromEntries(url.searchParams),
            headers: req.headers,
            body,
          });
        case path === '/reflect-401':
          // A careless target that echoes the request's credentials in its error page.
          return json(res, 401, { error: 'denied', youSent: req.headers });
        case path.startsWith('/orders/'):
          return json(res, 200, {
            order: { id: decodeURIComponent(path.slice(8)), status: 'shipped', tracking: 'TRK1' },
            items: [{ id: 'sku-1' }, { id: 'sku-2' }],
          });
        case path === '/bearer':
          return auth === 'Bearer good-token-123456'
            ? json(res, 200, { ok: 'bearer' })
            : json(res, 401, { error: 'bad token' });
        case path === '/apikey-header':
          return req.headers['x-api-key'] === 'key-abcdef-123456'
            ? json(res, 200, { ok: 'header' })
            : json(res, 403, { error: 'bad key' });
        case path === '/apikey-query':
          return url.searchParams.get('api_key') === 'key-abcdef-123456'
            ? json(res, 200, { ok: 'query' })
            : json(res, 401, { error: 'bad key' });
        case path === '/basic':
          return auth === `Basic ${Buffer.from('alice:wonderland-pass').toString('base64')}`
            ? json(res, 200, { ok: 'basic' })
            : json(res, 401, {});
        case path === '/oauth/token': {
          const form = new URLSearchParams(raw);
          if (
            form.get('grant_type') !== 'client_credentials' ||
            form.get('client_id') !== 'client-1' ||
            form.get('client_secret') !== 'client-secret-xyz'
          ) {
            return json(res, 401, { error: 'invalid_client' });
          }
          await new Promise((r) => setTimeout(r, 50)); // slow enough for concurrent calls to overlap
          return json(res, 200, {
            access_token: `tok-${++tokenSeq}`,
            token_type: 'Bearer',
            expires_in: state.tokenLifetimeSec,
            scope: form.get('scope'),
          });
        }
        case path === '/oauth/resource': {
          const token = auth.replace(/^Bearer /, '');
          return token.startsWith('tok-') && !state.revokedTokens.has(token)
            ? json(res, 200, { token })
            : json(res, 401, { error: 'expired' });
        }
        case path === '/slow': {
          const startMs = performance.now();
          await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms') ?? 1000)));
          target.slowSpans.push({ startMs, endMs: performance.now() });
          return json(res, 200, { slow: true });
        }
        case path === '/status': {
          const code = Number(url.searchParams.get('code') ?? 500);
          return json(res, code, { error: `status ${code}` });
        }
        case path === '/malformed':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"order": {"id": 1,');
        case path === '/text':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end('plain words');
        case path === '/endless': {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 'a');
          const pump = () => {
            while (!res.destroyed && res.write(chunk)) {
              /* keep writing until the socket pushes back */
            }
            if (!res.destroyed) res.once('drain', pump);
          };
          req.socket.on('close', () => res.destroy());
          return pump();
        }
        case path === '/trickle': {
          // Headers at once, then a byte every 50 ms: never idle long enough for a socket timeout.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"padding":"');
          const drip = setInterval(
            () => (res.destroyed ? clearInterval(drip) : res.write('x')),
            50,
          );
          req.socket.on('close', () => clearInterval(drip));
          return;
        }
        case path === '/redirect-loop':
          res.writeHead(302, { location: '/redirect-loop' });
          return res.end();
        case path === '/gzipped': {
          // Compressed although nobody asked: a careless target.
          const zipped = gzipSync(JSON.stringify({ order: { id: 'G-1' } }));
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          return res.end(zipped);
        }
        case path === '/redirect':
          // Any redirect status to any place: /redirect?code=303&to=/echo
          res.writeHead(Number(url.searchParams.get('code')), {
            location: url.searchParams.get('to')!,
          });
          return res.end();
        case path === '/redirect-once':
          res.writeHead(302, { location: '/orders/R-1' });
          return res.end();
        case path === '/flaky':
          if (state.flakyFailures > 0) {
            state.flakyFailures--;
            return json(res, state.flakyStatus, { error: 'try again' });
          }
          return json(res, 200, { ok: 'flaky' });
        default:
          return json(res, 404, { error: 'no such thing' });
      }
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  target.stop = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return target;
}
