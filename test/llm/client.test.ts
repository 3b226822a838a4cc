import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/llm/client.js';
import { emptyUsage } from '../../src/llm/types.js';
import { startFakeModels } from '../helpers/fake-models.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { secretsOf, storedRows } from '../helpers/store-under-test.js';

const FAST = { attempts: 3, baseDelayMs: 5, timeoutMs: 5_000 };

describe('language model connections', () => {
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  beforeAll(async () => {
    models = await startFakeModels();
  });
  afterAll(() => models.stop());

  it('OpenAI-compatible: sends system, history and tools; reads text, tool calls and usage', async () => {
    const complete = createModelClient(
      { kind: 'openai', baseUrl: `${models.url}/v1`, apiKey: 'sk-test', model: 'gpt-test' },
      FAST,
    );
    // Cached prompt tokens are counted within prompt_tokens, and apart (they are priced apart).
    models.openai(null, [{ id: 'call_1', name: 'order_status', arguments: '{"orderId":"A1"}' }], {
      prompt_tokens: 10,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 4 },
    });
    const usage = emptyUsage();
    const out = await complete(
      {
        system: 'You are an agent.',
        temperature: 0.2,
        messages: [{ role: 'user', content: 'Where is A1?' }],
        tools: [
          {
            name: 'order_status',
            description: 'Order lookup',
            parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
          },
        ],
      },
      usage,
    );
    expect(out).toEqual({
      text: '',
      toolCalls: [{ id: 'call_1', name: 'order_status', arguments: { orderId: 'A1' } }],
      model: 'gpt-test',
    });
    expect(usage).toEqual({
      llm_calls: 1,
      input_tokens: 10,
      cached_input_tokens: 4,
      output_tokens: 5,
    });
    const sent = models.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'Where is A1?' },
      ],
      tools: [{ type: 'function', function: { name: 'order_status' } }],
    });

    // The tool result goes back in the conversation.
    models.openai('It shipped.');
    const next = await complete(
      {
        messages: [
          { role: 'user', content: 'Where is A1?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_1', name: 'order_status', arguments: { orderId: 'A1' } }],
          },
          {
            role: 'tool',
            toolCallId: 'call_1',
            name: 'order_status',
            content: '{"status":"shipped"}',
          },
        ],
      },
      usage,
    );
    expect(next.text).toBe('It shipped.');
    expect(models.requests.at(-1)!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'order_status', arguments: '{"orderId":"A1"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' },
    ]);
  });

  it('retries 429 and 5xx with backoff, counting every call in usage; never a 400', async () => {
    const complete = createModelClient(
      { kind: 'openai', baseUrl: models.url, apiKey: 'k', model: 'm' },
      FAST,
    );
    models.fail(429);
    models.fail(503);
    models.openai('finally', [], { prompt_tokens: 3, completion_tokens: 2 });
    const usage = emptyUsage();
    expect((await complete({ messages: [{ role: 'user', content: 'hi' }] }, usage)).text).toBe(
      'finally',
    );
    expect(usage).toEqual({
      llm_calls: 3,
      input_tokens: 3,
      cached_input_tokens: 0,
      output_tokens: 2,
    });
    models.fail(400);
    const refused = emptyUsage();
    await expect(
      complete({ messages: [{ role: 'user', content: 'hi' }] }, refused),
    ).rejects.toThrow(/failed \(400\)/);
    expect(refused.llm_calls).toBe(1);
    models.fail(500, 3);
    await expect(
      complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage()),
    ).rejects.toThrow(/failed \(500\)/);
  });

  it('Anthropic: system apart, tool_use and tool_result blocks, usage', async () => {
    const complete = createModelClient(
      { kind: 'anthropic', baseUrl: models.url, apiKey: 'ak-test', model: 'claude-test' },
      FAST,
    );
    // Anthropic counts cache reads apart from input_tokens: the input total includes them.
    models.anthropic(
      [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'tu_1', name: 'order_status', input: { orderId: 'A1' } },
      ],
      { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3 },
    );
    const usage = emptyUsage();
    const out = await complete(
      {
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Where is A1?' }],
        tools: [{ name: 'order_status', description: 'd', parameters: { type: 'object' } }],
      },
      usage,
    );
    expect(out).toEqual({
      text: 'Let me check.',
      toolCalls: [{ id: 'tu_1', name: 'order_status', arguments: { orderId: 'A1' } }],
      model: 'claude-test',
    });
    expect(usage).toEqual({
      llm_calls: 1,
      input_tokens: 15,
      cached_input_tokens: 3,
      output_tokens: 7,
    });
    const sent = models.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    // The SDK decides the header (x-api-key in older releases, a bearer token in this one).
    expect([sent.headers['x-api-key'], sent.headers.authorization]).toContain(
      sent.headers['x-api-key'] ? 'ak-test' : 'Bearer ak-test',
    );
    expect(sent.body).toMatchObject({
      model: 'claude-test',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Where is A1?' }],
      tools: [{ name: 'order_status', input_schema: { type: 'object' } }],
    });
  });
});

describe('model roles in /v1/settings', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      llmDefault: {
        kind: 'openai',
        baseUrl: 'http://127.0.0.1:9/v1',
        apiKey: 'env-key-abcdef123',
        model: 'env-model',
      },
    });
  });
  afterAll(() => s.stop());

  it('every role falls back to the environment default; a role of its own overrides it, key sealed and masked', async () => {
    const before = (await s.call('GET', '/v1/settings')).body.llm;
    expect(before.judge).toEqual({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'env-model',
      apiKey: '****f123',
      source: 'environment',
    });
    const res = await s.call('PATCH', '/v1/settings', {
      llm: { judge: { kind: 'anthropic', apiKey: 'sk-ant-secret-7777', model: 'claude-judge' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.llm.judge).toEqual({
      kind: 'anthropic',
      baseUrl: null,
      model: 'claude-judge',
      apiKey: '****7777',
      source: 'settings',
    });
    expect(res.body.llm.caller.source).toBe('environment');
    expect(JSON.stringify(await storedRows(s.stored, 'SELECT value FROM settings'))).not.toContain(
      'sk-ant-secret-7777',
    );
    await s.call('PATCH', '/v1/settings', {
      llm: { judge: { apiKey: '****7777', model: 'claude-judge-2' } },
    });
    const { connectionFor } = await import('../../src/llm/settings.js');
    expect(await connectionFor(s.engine.store, await secretsOf(s), 'judge', null)).toEqual({
      kind: 'anthropic',
      apiKey: 'sk-ant-secret-7777',
      model: 'claude-judge-2',
    });
    expect(
      (await s.call('PATCH', '/v1/settings', { llm: { judge: null } })).body.llm.judge.source,
    ).toBe('environment');
  });

  it('a model that cannot be reached is named with the reason, not a bare "Connection error."', async () => {
    const complete = createModelClient(
      { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'sk-test', model: 'gpt-test' },
      { ...FAST, attempts: 1 },
    );
    await expect(
      complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage()),
    ).rejects.toThrow(/The openai model gpt-test failed: Connection error\. \(.*ECONNREFUSED/);
  });

  it('a role needs a model and a key', async () => {
    const res = await s.call('PATCH', '/v1/settings', { llm: { caller: { kind: 'openai' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'llm.caller.model',
      'llm.caller.apiKey',
    ]);
    expect((await s.call('PATCH', '/v1/settings', { llm: { narrator: {} } })).status).toBe(400);
  });
});
