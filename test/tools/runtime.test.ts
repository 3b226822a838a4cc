import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { Target } from '../helpers/target.js';
import { toolFixture } from './fixture.js';

describe('tool runtime: real calls through POST /v1/tools/{name}/test', () => {
  const f = toolFixture();
  const { create, test } = f;
  // The servers exist once the fixture's beforeAll has run.
  let s: TestServer;
  let t: Target;
  beforeAll(() => {
    ({ s, t } = f);
  });
  const api = (
    name: string,
    path: string,
    extra: Record<string, unknown> = {},
    config: Record<string, unknown> = {},
  ) =>
    create({
      name,
      type: 'api',
      config: { method: 'GET', url: `${t.url}${path}`, ...config },
      ...extra,
    });

  describe('calling', () => {
    it("fills URL placeholders encoded, maps the response, and answers the specification's shape", async () => {
      await api('order', '/orders/{orderId}', {
        parameters: [{ name: 'orderId', type: 'string', required: true }],
        responseMapping: {
          status: 'order.status',
          firstItem: 'items.0.id',
          secondItem: 'items[1].id',
          missing: 'order.eta',
        },
      });
      const res = await test('order', { parameters: { orderId: 'A/1 ?x' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        statusCode: 200,
        attempts: 1,
        responseTime: expect.any(Number),
        result: { status: 'shipped', firstItem: 'sku-1', secondItem: 'sku-2', missing: null },
        warnings: ["responseMapping.missing: path 'order.eta' is not in the response"],
      });
      expect(t.last!.path).toBe('/orders/A%2F1%20%3Fx');
    });

    it('sends other parameters as the query for GET and as a JSON body otherwise, with config headers', async () => {
      const params = [
        { name: 'q', type: 'string' },
        { name: 'n', type: 'number' },
        { name: 'flag', type: 'boolean' },
      ];
      await api('echo_get', '/echo', { parameters: params }, { headers: { 'X-Team': 'qa' } });
      const got = (await test('echo_get', { parameters: { q: 'a b', n: 2, flag: true } })).body
        .result;
      expect(got).toMatchObject({
        method: 'GET',
        query: { q: 'a b', n: '2', flag: 'true' },
        body: null,
        headers: { 'x-team': 'qa' },
      });
      await api('echo_post', '/echo', { parameters: params }, { method: 'POST' });
      const posted = (await test('echo_post', { parameters: { q: 'a', n: 2, flag: false } })).body
        .result;
      expect(posted).toMatchObject({
        method: 'POST',
        query: {},
        body: { q: 'a', n: 2, flag: false },
        headers: { 'content-type': 'application/json' },
      });
    });

    it('without a mapping the whole body is the result (text when it is not JSON)', async () => {
      await api('whole', '/orders/Z');
      expect((await test('whole')).body.result).toEqual({
        order: { id: 'Z', status: 'shipped', tracking: 'TRK1' },
        items: [{ id: 'sku-1' }, { id: 'sku-2' }],
      });
      await api('text', '/text');
      expect((await test('text')).body).toMatchObject({ success: true, result: 'plain words' });
    });

    it('follows up to 3 redirects', async () => {
      await api('redirected', '/redirect-once', { responseMapping: { id: 'order.id' } });
      expect((await test('redirected')).body.result).toEqual({ id: 'R-1' });
    });

    it('leaves the headers of the connection itself (Keep-Alive, Transfer-Encoding) to the client', async () => {
      await api(
        'hop_by_hop',
        '/echo',
        {},
        {
          headers: { 'Keep-Alive': 'timeout=5', 'Transfer-Encoding': 'chunked', 'X-Team': 'qa' },
        },
      );
      const res = await test('hop_by_hop');
      expect(res.body).toMatchObject({ success: true, result: { headers: { 'x-team': 'qa' } } });
      expect(res.body.result.headers['keep-alive']).toBeUndefined();
    });

    it('decodes a compressed answer', async () => {
      await api('gzipped', '/gzipped', { responseMapping: { id: 'order.id' } });
      expect((await test('gzipped')).body).toMatchObject({ success: true, result: { id: 'G-1' } });
    });

    it('a 303, or a 301 or 302 after a POST, goes on as a GET without the body; a 307 resends it', async () => {
      const sent = async (code: number) => {
        const name = `post_via_${code}`;
        await api(
          name,
          `/redirect?code=${code}&to=/echo`,
          { parameters: [{ name: 'q', type: 'string' }] },
          { method: 'POST', headers: { 'X-Team': 'qa' } },
        );
        const res = await test(name, { parameters: { q: 'a' } });
        expect(res.body.success, String(code)).toBe(true);
        return res.body.result as {
          method: string;
          body: unknown;
          headers: Record<string, string>;
        };
      };
      for (const code of [301, 302, 303]) {
        const got = await sent(code);
        expect(got, String(code)).toMatchObject({ method: 'GET', body: null });
        expect(got.headers['content-type'], String(code)).toBeUndefined();
        expect(got.headers['x-team'], String(code)).toBe('qa');
      }
      expect(await sent(307)).toMatchObject({ method: 'POST', body: { q: 'a' } });
    });

    it('an answer past the network.maxResponseMiB setting is response_too_large', async () => {
      await api('capped', '/endless');
      expect(
        (await s.call('PATCH', '/v1/settings', { network: { maxResponseMiB: 1 } })).status,
      ).toBe(200);
      try {
        expect((await test('capped')).body).toMatchObject({
          success: false,
          error: { type: 'response_too_large', message: expect.stringContaining('1048576 bytes') },
        });
      } finally {
        await s.call('PATCH', '/v1/settings', { network: { maxResponseMiB: 10 } });
      }
    });
  });

  describe('parameters', () => {
    beforeAll(async () => {
      await api('params', '/echo', {
        parameters: [
          { name: 'id', type: 'string', required: true },
          { name: 'count', type: 'number', default: 10, min: 1, max: 100 },
          { name: 'amount', type: 'number', min: 0.01 },
          { name: 'kind', type: 'string', enum: ['refund', 'exchange'] },
          { name: 'vip', type: 'boolean' },
          {
            name: 'queue',
            type: 'string',
            dynamicValue: {
              basedOn: 'customer.tier',
              mapping: { gold: 'priority', silver: 'standard' },
            },
          },
        ],
        responseMapping: { query: 'query' },
      });
    });

    it('applies defaults and dynamic values from the context', async () => {
      const res = await test('params', {
        parameters: { id: 'x' },
        context: { customer: { tier: 'gold' } },
      });
      expect(res.body.result.query).toEqual({ id: 'x', count: '10', queue: 'priority' });
      const explicit = await test('params', {
        parameters: { id: 'x', queue: 'manual' },
        context: { customer: { tier: 'gold' } },
      });
      expect(explicit.body.result.query.queue).toBe('manual');
    });

    it('lists every violation in one 400, by parameter name and reason', async () => {
      t.hits.delete('/echo');
      const res = await test('params', {
        parameters: { count: '5', amount: 0, kind: 'gift', vip: 'yes', extra: 1 },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { path: 'parameters.extra', message: 'is not a parameter of this tool' },
        { path: 'parameters.id', message: 'is required' },
        { path: 'parameters.count', message: 'must be a number (not a string)' },
        { path: 'parameters.amount', message: 'must be at least 0.01' },
        { path: 'parameters.kind', message: 'must be one of: refund, exchange' },
        { path: 'parameters.vip', message: 'must be a boolean (not a string)' },
      ]);
      expect(
        (await test('params', { parameters: { id: 'x', count: 101 } })).body.error.details,
      ).toEqual([{ path: 'parameters.count', message: 'must be at most 100' }]);
      expect(t.hits.get('/echo')).toBeUndefined();
    });
  });

  describe('auth on the target', () => {
    it('bearer, api_key in a header or the query, and basic reach the target; wrong ones are auth_error', async () => {
      await api(
        'bearer_ok',
        '/bearer',
        {},
        { auth: { type: 'bearer', token: 'good-token-123456' } },
      );
      await api(
        'bearer_bad',
        '/bearer',
        {},
        { auth: { type: 'bearer', token: 'wrong-token-000000' } },
      );
      await api(
        'key_header',
        '/apikey-header',
        {},
        {
          auth: {
            type: 'api_key',
            key: 'key-abcdef-123456',
            location: 'header',
            paramName: 'X-API-Key',
          },
        },
      );
      await api(
        'key_query',
        '/apikey-query',
        {},
        {
          auth: {
            type: 'api_key',
            key: 'key-abcdef-123456',
            location: 'query',
            paramName: 'api_key',
          },
        },
      );
      await api(
        'basic_ok',
        '/basic',
        {},
        { auth: { type: 'basic', username: 'alice', password: 'wonderland-pass' } },
      );
      await api(
        'basic_bad',
        '/basic',
        {},
        { auth: { type: 'basic', username: 'alice', password: 'nope-nope' } },
      );
      for (const name of ['bearer_ok', 'key_header', 'key_query', 'basic_ok'])
        expect((await test(name)).body.success, name).toBe(true);
      for (const name of ['bearer_bad', 'basic_bad']) {
        const res = await test(name);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          success: false,
          statusCode: 401,
          error: { type: 'auth_error' },
        });
      }
    });

    it('oauth2: one token request for many concurrent calls, reused, fetched again once after a 401', async () => {
      await api(
        'oauth',
        '/oauth/resource',
        { responseMapping: { token: 'token' } },
        {
          auth: {
            type: 'oauth2',
            clientId: 'client-1',
            clientSecret: 'client-secret-xyz',
            tokenUrl: `${t.url}/oauth/token`,
            scope: 'orders:read',
          },
        },
      );
      // The token endpoint is shared by this file's tests: count from what it had before.
      const before = t.hits.get('/oauth/token') ?? 0;
      const answers = await Promise.all(Array.from({ length: 10 }, () => test('oauth')));
      expect(answers.every((a) => a.body.success)).toBe(true);
      const tokens = new Set(answers.map((a) => a.body.result.token as string));
      expect(tokens.size).toBe(1);
      const [first] = [...tokens] as [string];
      expect(t.hits.get('/oauth/token')).toBe(before + 1);
      expect((await test('oauth')).body.result.token).toBe(first);
      t.state.revokedTokens.add(first);
      const renewed = await test('oauth');
      expect(renewed.body).toMatchObject({ success: true, result: { token: expect.any(String) } });
      expect(renewed.body.result.token).not.toBe(first);
      expect(t.hits.get('/oauth/token')).toBe(before + 2);
    });

    it('oauth2 with wrong client credentials is an auth_error', async () => {
      await api(
        'oauth_bad',
        '/oauth/resource',
        {},
        {
          auth: {
            type: 'oauth2',
            clientId: 'client-1',
            clientSecret: 'wrong-secret',
            tokenUrl: `${t.url}/oauth/token`,
          },
        },
      );
      expect((await test('oauth_bad')).body).toMatchObject({
        success: false,
        error: { type: 'auth_error' },
      });
    });
  });

  describe('failures', () => {
    it('classifies every failure kind', async () => {
      await api('slow', '/slow?ms=1500', {}, { timeoutMs: 200 });
      await api('missing', '/status?code=404');
      await api('denied', '/status?code=403');
      await api('broken', '/status?code=500');
      await api('malformed', '/malformed', { responseMapping: { id: 'order.id' } });
      await api('endless', '/endless', {}, { timeoutMs: 30_000 });
      await api('loop', '/redirect-loop');
      await create({ name: 'unreachable', type: 'api', config: { url: 'http://127.0.0.1:1/x' } });
      const expected: Record<string, [string, number | null]> = {
        slow: ['timeout', null],
        missing: ['not_found', 404],
        denied: ['auth_error', 403],
        broken: ['http_error', 500],
        malformed: ['invalid_response', 200],
        endless: ['response_too_large', null],
        loop: ['http_error', null],
        unreachable: ['network_error', null],
      };
      for (const [name, [type, statusCode]] of Object.entries(expected)) {
        const res = await test(name);
        expect(res.status, name).toBe(200);
        expect(res.body, name).toMatchObject({
          success: false,
          result: null,
          statusCode,
          error: { type, message: expect.any(String) },
          warnings: [],
        });
      }
      const slow = await test('slow');
      expect(slow.body.responseTime).toBeLessThan(1_000);
    });

    it('a body that trickles in past the timeout is a timeout: the deadline covers the exchange', async () => {
      await api('trickle', '/trickle', {}, { timeoutMs: 300 });
      const res = await test('trickle');
      expect(res.body).toMatchObject({ success: false, error: { type: 'timeout' } });
      expect(res.body.responseTime).toBeLessThan(1_500);
    });

    it('retries on the target as errorHandling says, with backoff, and answers the fallback when they run out', async () => {
      await api('flaky', '/flaky', {
        errorHandling: {
          onNotFound: { action: 'retry', maxRetries: 3, fallbackMessage: 'Let me check again.' },
        },
      });
      t.state.flakyStatus = 404;
      t.state.flakyFailures = 2;
      t.hits.delete('/flaky');
      expect((await test('flaky')).body).toMatchObject({ success: true, attempts: 3 });
      expect(t.hits.get('/flaky')).toBe(3);
      t.state.flakyFailures = 10;
      t.hits.delete('/flaky');
      const exhausted = await test('flaky');
      expect(exhausted.body).toMatchObject({
        success: false,
        attempts: 4,
        error: { type: 'not_found' },
        fallback: { message: 'Let me check again.', action: 'retry' },
      });
      expect(t.hits.get('/flaky')).toBe(4);
      t.state.flakyFailures = 0;
    });

    it('escalate and ask_for_clarification end the call with their fallback', async () => {
      await api(
        'escalating',
        '/slow?ms=1000',
        {
          errorHandling: {
            onTimeout: { action: 'escalate', fallbackMessage: 'Transferring you.' },
          },
        },
        { timeoutMs: 100 },
      );
      expect((await test('escalating')).body).toMatchObject({
        success: false,
        attempts: 1,
        error: { type: 'timeout' },
        fallback: { message: 'Transferring you.', action: 'escalate' },
      });
      await api('asking', '/status?code=404', {
        errorHandling: {
          onNotFound: { action: 'ask_for_clarification', fallbackMessage: 'Which order?' },
        },
      });
      expect((await test('asking')).body.fallback).toEqual({
        message: 'Which order?',
        action: 'ask_for_clarification',
      });
    });
  });

  describe('rules, routing, dry runs, actions', () => {
    it('a matching require_approval rule stops the call: nothing is sent', async () => {
      await api(
        'refund',
        '/echo',
        {
          parameters: [{ name: 'amount', type: 'number', required: true }],
          rules: [
            {
              condition: 'amount > 500',
              action: 'require_approval',
              message: 'A manager must approve refunds over $500.',
            },
          ],
        },
        { method: 'POST' },
      );
      t.hits.delete('/echo');
      const stopped = await test('refund', { parameters: { amount: 501 } });
      expect(stopped.body).toMatchObject({
        success: false,
        approvalRequired: true,
        message: 'A manager must approve refunds over $500.',
        attempts: 0,
      });
      expect(t.hits.get('/echo')).toBeUndefined();
      expect((await test('refund', { parameters: { amount: 20 } })).body.success).toBe(true);
      expect(t.hits.get('/echo')).toBe(1);
    });

    it('rule conditions read parameters and context; hostile expressions reach nothing', async () => {
      await api('gold', '/echo', {
        parameters: [
          { name: 'amount', type: 'number' },
          { name: 'status', type: 'string' },
        ],
        rules: [
          {
            condition: 'customer.tier == "gold" and amount < 100',
            action: 'require_approval',
            message: 'gold small',
          },
          {
            condition: 'status in ["open", "pending"]',
            action: 'require_approval',
            message: 'open',
          },
          {
            condition: 'customer["con" + "structor"] != null or process != null',
            action: 'require_approval',
            message: 'escaped!',
          },
        ],
      });
      expect(
        (
          await test('gold', {
            parameters: { amount: 50 },
            context: { customer: { tier: 'gold' } },
          })
        ).body.message,
      ).toBe('gold small');
      expect(
        (
          await test('gold', {
            parameters: { amount: 500, status: 'pending' },
            context: { customer: { tier: 'gold' } },
          })
        ).body.message,
      ).toBe('open');
      expect(
        (
          await test('gold', {
            parameters: { amount: 500, status: 'closed' },
            context: { customer: { tier: 'gold' } },
          })
        ).body.success,
      ).toBe(true);
    });

    it('routing: the first condition that holds decides; none holding means not allowed', async () => {
      await create({
        name: 'transfer',
        type: 'routing',
        config: { transferTo: '+15550100', priority: 'high' },
        parameters: [{ name: 'reason', type: 'string' }],
        conditions: [
          { check: 'reason == "fraud"', action: 'allow' },
          { check: 'customer.blocked', action: 'deny' },
          { check: 'customer.tier == "gold"', action: 'allow' },
        ],
      });
      const route = async (reason: string, customer: unknown) =>
        (await test('transfer', { parameters: { reason }, context: { customer } })).body.result;
      expect(await route('fraud', { blocked: true })).toEqual({
        transferTo: '+15550100',
        priority: 'high',
        allowed: true,
      });
      expect((await route('billing', { blocked: true, tier: 'gold' })).allowed).toBe(false);
      expect((await route('billing', { tier: 'gold' })).allowed).toBe(true);
      expect((await route('billing', { tier: 'bronze' })).allowed).toBe(false);
    });

    it('a dry run answers the exact request, secrets masked, and sends nothing', async () => {
      await api(
        'dry',
        '/orders/{orderId}',
        {
          parameters: [
            { name: 'orderId', type: 'string' },
            { name: 'note', type: 'string' },
          ],
        },
        {
          method: 'POST',
          auth: { type: 'bearer', token: 'very-secret-token-9999' },
          headers: { 'X-Team': 'qa' },
        },
      );
      t.hits.clear();
      const res = await test('dry', { parameters: { orderId: 'A1', note: 'hi' }, dryRun: true });
      expect(res.body).toMatchObject({
        success: true,
        dryRun: true,
        request: {
          method: 'POST',
          url: `${t.url}/orders/A1`,
          headers: {
            authorization: 'Bearer ****9999',
            'x-team': 'qa',
            'content-type': 'application/json',
          },
          body: { note: 'hi' },
        },
      });
      expect(JSON.stringify(res.body)).not.toContain('very-secret-token');
      expect(t.hits.size).toBe(0);
    });

    it('action tools make their side-effecting call for real', async () => {
      await create({
        name: 'cancel',
        type: 'action',
        config: { method: 'DELETE', url: `${t.url}/echo` },
        parameters: [{ name: 'orderId', type: 'string', required: true }],
      });
      const res = await test('cancel', { parameters: { orderId: 'A1' } });
      expect(res.body.result).toMatchObject({ method: 'DELETE', query: { orderId: 'A1' } });
    });

    it('an unknown tool is a 404; a bad body a 400', async () => {
      expect((await test('ghost')).status).toBe(404);
      expect(
        (await s.call('POST', '/v1/tools/order/test', { params: {} })).body.error.details,
      ).toEqual([{ path: 'params', message: 'is not a field of this resource' }]);
    });
  });
});
