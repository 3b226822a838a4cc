import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/llm/client.js';
import { emptyUsage } from '../../src/llm/types.js';
import { guardedFetch } from '../../src/net/exchange.js';
import { DEFAULT_MAX_RESPONSE_BYTES, setResponseCap } from '../../src/net/outbound.js';
import { providerClient } from '../../src/providers/client.js';
import { httpAgentChat } from '../../src/providers/http-agent.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface Seen {
  path: string;
  headers: Record<string, unknown>;
}

/** A real HTTP server on 127.0.0.1 that records what reached it. */
async function listen(
  route: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    route(req, res, seen);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const completion = {
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

const credentialHeaders = ['authorization', 'x-api-key', 'api-key', 'xi-api-key', 'cookie'];

describe('requests to the outside', () => {
  // "away" is another origin (another port) than "home", which redirects to it.
  let away: Awaited<ReturnType<typeof listen>>;
  let home: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    away = await listen((req, res) => {
      if (req.url?.includes('chat/completions') || req.url?.includes('/v1/messages'))
        return json(res, completion);
      json(res, { reached: 'away', headers: req.headers });
    });
    home = await listen((req, res) => {
      if (req.url?.startsWith('/to-away'))
        res.writeHead(307, { location: `${away.url}${req.url.slice('/to-away'.length) || '/'}` });
      else if (req.url?.startsWith('/to-home'))
        res.writeHead(307, { location: req.url.slice('/to-home'.length) || '/' });
      else if (req.url?.startsWith('/big-gzip')) {
        // Small on the wire, with a true content-length; 3 MiB once fetch has inflated it.
        const body = gzipSync(JSON.stringify({ reply: 'x'.repeat(3 * 1024 * 1024) }));
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': body.length,
        });
        return res.end(body);
      } else if (req.url?.startsWith('/big-chunked')) {
        // No length announced: the size is only known as the chunks arrive.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"reply":"');
        for (let i = 0; i < 48; i++) res.write('x'.repeat(64 * 1024));
        return res.end('"}');
      } else if (req.url?.startsWith('/big')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ reply: 'x'.repeat(3 * 1024 * 1024) }));
      } else return json(res, { reached: 'home', headers: req.headers });
      res.end();
    });
  });
  afterAll(async () => {
    await new Promise((r) => away.server.close(r));
    await new Promise((r) => home.server.close(r));
  });
  afterEach(() => setResponseCap(DEFAULT_MAX_RESPONSE_BYTES));
  const lastAway = () => away.seen[away.seen.length - 1]!;
  const lastHome = () => home.seen[home.seen.length - 1]!;
  const carried = (seen: Seen) => credentialHeaders.filter((h) => seen.headers[h] !== undefined);

  describe('credentials never follow a redirect to another origin', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer();
    });
    afterAll(() => s.stop());

    it('tool requests: bearer and key headers dropped across origins, kept on the same one', async () => {
      const tool = (name: string, path: string) =>
        s.call('POST', '/v1/tools', {
          name,
          type: 'api',
          config: {
            url: `${home.url}${path}`,
            auth: { type: 'bearer', token: 'tok_secret_0123456789' },
            headers: { 'X-Api-Key': 'key_secret', Cookie: 'session=1', 'X-Trace': 'keep-me' },
          },
        });
      expect((await tool('away_tool', '/to-away/x')).status).toBe(201);
      expect((await tool('home_tool', '/to-home/y')).status).toBe(201);

      const awayRes = await s.call('POST', '/v1/tools/away_tool/test', {});
      expect(awayRes.body.result.reached).toBe('away');
      expect(carried(lastAway())).toEqual([]);
      // Not safelisted: another origin gets none of the tool's own headers either.
      expect(lastAway().headers['x-trace']).toBeUndefined();

      const homeRes = await s.call('POST', '/v1/tools/home_tool/test', {});
      expect(homeRes.body.result).toMatchObject({
        reached: 'home',
        // Sent, and echoed back: the echo of a secret is masked in the answer.
        headers: { authorization: 'Bearer ****', 'x-api-key': '****' },
      });
    });

    it("tool requests: another origin gets only safelisted headers, none the tool's auth made, whatever its name", async () => {
      const tool = (name: string, path: string, auth: Record<string, unknown>) =>
        s.call('POST', '/v1/tools', {
          name,
          type: 'api',
          config: {
            url: `${home.url}${path}`,
            auth,
            headers: {
              'X-Tenant': 'acme',
              Accept: 'application/json',
              'Content-Language': 'en',
              'Accept-Language': 'fr',
            },
          },
        });
      const credential = { type: 'api_key', key: 'cred_0123456789', paramName: 'X-Credential' };
      expect((await tool('credential_away', '/to-away/c', credential)).status).toBe(201);
      expect((await tool('credential_home', '/to-home/c', credential)).status).toBe(201);
      // An auth header under a safelisted name is still the auth's: it stays behind.
      const inAccept = { type: 'api_key', key: 'lang_0123456789', paramName: 'Accept-Language' };
      expect((await tool('language_away', '/to-away/l', inAccept)).status).toBe(201);

      expect((await s.call('POST', '/v1/tools/credential_away/test', {})).body.success).toBe(true);
      const away1 = lastAway().headers;
      expect(away1['x-credential']).toBeUndefined();
      expect(away1['x-tenant']).toBeUndefined();
      expect(away1).toMatchObject({
        accept: 'application/json',
        'content-language': 'en',
        'accept-language': 'fr',
      });

      expect((await s.call('POST', '/v1/tools/language_away/test', {})).body.success).toBe(true);
      expect(lastAway().headers['accept-language']).toBeUndefined();
      expect(lastAway().headers['x-tenant']).toBeUndefined();

      // On the same origin every header goes on.
      expect((await s.call('POST', '/v1/tools/credential_home/test', {})).body.success).toBe(true);
      expect(lastHome().headers).toMatchObject({
        'x-credential': 'cred_0123456789',
        'x-tenant': 'acme',
      });
    });

    it('provider requests', async () => {
      const call = providerClient(home.url, {
        authorization: 'Bearer prov_key',
        'xi-api-key': 'k',
      });
      expect(await call({ path: '/to-away/assistant' })).toMatchObject({ reached: 'away' });
      expect(carried(lastAway())).toEqual([]);
    });

    it('agent requests', async () => {
      const chat = httpAgentChat(
        { baseUrl: `${home.url}/to-away/agent`, apiKey: 'agent_key' },
        5_000,
      );
      await chat.send('hi').catch(() => {}); // the answer's shape does not matter here
      expect(lastAway().path).toBe('/agent');
      expect(carried(lastAway())).toEqual([]);
    });

    it.each(['openai', 'anthropic'] as const)('model requests (%s SDK)', async (kind) => {
      const client = createModelClient(
        { kind, baseUrl: `${home.url}/to-away/v1`, apiKey: 'model_key_0123', model: 'm' },
        { attempts: 1, baseDelayMs: 1, timeoutMs: 5_000 },
      );
      await client(
        { system: 's', messages: [{ role: 'user', content: 'hi' }] },
        emptyUsage(),
      ).catch(
        () => {}, // anthropic's answer shape differs; what reached "away" is what is checked
      );
      expect(lastAway().path).toMatch(/\/v1\/(chat\/completions|messages)/);
      expect(carried(lastAway())).toEqual([]);
    });
  });

  describe('answers are capped (network.maxResponseMiB)', () => {
    it('is a setting, answered by GET /v1/settings', async () => {
      const s = await startServer();
      try {
        expect((await s.call('GET', '/v1/settings')).body.network).toEqual({ maxResponseMiB: 10 });
        const patched = await s.call('PATCH', '/v1/settings', { network: { maxResponseMiB: 2 } });
        expect(patched.body.network).toEqual({ maxResponseMiB: 2 });
      } finally {
        await s.stop();
      }
    });

    it('an agent answer past the cap fails response_too_large, with nothing of it kept', async () => {
      setResponseCap(1024 * 1024);
      const chat = httpAgentChat({ baseUrl: `${home.url}/big` }, 5_000);
      await expect(chat.send('hi')).rejects.toThrow(/response_too_large/);
    });

    it('a provider answer past the cap fails response_too_large without retrying', async () => {
      setResponseCap(1024 * 1024);
      const before = home.seen.length;
      const call = providerClient(
        home.url,
        {},
        {
          attempts: 3,
          baseDelayMs: 1,
          maxRetryAfterMs: 1,
          timeoutMs: 5_000,
        },
      );
      await expect(call({ path: '/big' })).rejects.toThrow(/response_too_large/);
      expect(home.seen.length - before).toBe(1);
    });

    it("the SDKs' fetch answers a decoded body without the headers of its encoding", async () => {
      const res = await guardedFetch()(`${home.url}/big-gzip`, { method: 'GET' });
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.headers.get('content-length')).toBeNull();
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(((await res.json()) as { reply: string }).reply).toHaveLength(3 * 1024 * 1024);
    });

    it('a compressed provider answer is decoded, and capped once decoded', async () => {
      const call = providerClient(home.url, {});
      const answer = await call<{ reply: string }>({ path: '/big-gzip' });
      expect(answer.reply).toHaveLength(3 * 1024 * 1024);
      expect(lastHome().headers['accept-encoding']).toMatch(/gzip/);
      setResponseCap(1024 * 1024);
      await expect(call({ path: '/big-gzip' })).rejects.toThrow(/response_too_large/);
    });

    it.each(['/big-gzip', '/big-chunked'])(
      'a model answer past the cap fails response_too_large even when %s',
      async (path) => {
        const client = createModelClient(
          { kind: 'openai', baseUrl: `${home.url}${path}`, apiKey: 'k', model: 'm' },
          { attempts: 1, baseDelayMs: 1, timeoutMs: 5_000, maxResponseBytes: 1024 * 1024 },
        );
        await expect(
          client({ system: 's', messages: [{ role: 'user', content: 'hi' }] }, emptyUsage()),
        ).rejects.toThrow(/response_too_large/);
      },
    );

    it('a model answer past the cap fails response_too_large', async () => {
      const client = createModelClient(
        { kind: 'openai', baseUrl: `${home.url}/big`, apiKey: 'k', model: 'm' },
        { attempts: 2, baseDelayMs: 1, timeoutMs: 5_000, maxResponseBytes: 1024 * 1024 },
      );
      await expect(
        client({ system: 's', messages: [{ role: 'user', content: 'hi' }] }, emptyUsage()),
      ).rejects.toThrow(/response_too_large/);
    });
  });
});
