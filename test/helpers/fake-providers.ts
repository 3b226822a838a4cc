import { handled } from './handled.js';
import type { JsonObject } from './json.js';
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { elevenSocketUpgrade, handleProviderChat, newChatLog, type ChatLog } from './fake-chat.js';
import { prepareSpeech, type BrainOptions, type FakeBrainRecord } from './fake-voice-brain.js';
import { createVoiceFakes } from './fake-voice.js';

type Json = JsonObject;

export const GOOD_KEY = 'prov-key-good-123';
export const T0 = Date.parse('2026-06-01T10:00:00Z');

/** A Vapi call with a 4-turn transcript and one tool call, `i` minutes after T0. */
export function vapiCall(i: number, assistantId = 'asst_1'): Json {
  const start = T0 + i * 60_000;
  return {
    id: `vc_${i}`,
    assistantId,
    orgId: 'org',
    type: 'inboundPhoneCall',
    status: 'ended',
    createdAt: new Date(start - 500).toISOString(),
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + 95_000).toISOString(),
    endedReason: i % 10 === 0 ? 'pipeline-error-openai-llm-failed' : 'customer-ended-call',
    cost: 0.12,
    costBreakdown: { llm: 0.05 },
    analysis: {
      summary: `Call ${i} about an order`,
      successEvaluation: i % 4 === 0 ? 'false' : 'true',
      structuredData: null,
    },
    artifact: {
      recordingUrl: `https://rec.example/${i}.wav`,
      transcript: 'AI: Hi\nUser: Hello',
      futureField: { nested: true },
    },
    messages: [
      { role: 'system', message: 'You are a support agent', time: start, secondsFromStart: 0 },
      {
        role: 'bot',
        message: 'Hi, how can I help?',
        time: start + 100,
        endTime: start + 1500,
        secondsFromStart: 0.1,
        duration: 1400,
      },
      {
        role: 'user',
        message: 'Where is order A1?',
        time: start + 2000,
        endTime: start + 3500,
        secondsFromStart: 2,
        duration: 1500,
      },
      {
        role: 'tool_calls',
        time: start + 3600,
        secondsFromStart: 3.6,
        toolCalls: [
          {
            id: `tc_${i}`,
            type: 'function',
            function: { name: 'order_status', arguments: '{"orderId":"A1"}' },
          },
        ],
      },
      {
        role: 'tool_call_result',
        time: start + 3850,
        toolCallId: `tc_${i}`,
        name: 'order_status',
        result: i % 5 === 0 ? undefined : '{"status":"shipped"}',
        error: i % 5 === 0 ? 'timeout' : undefined,
      },
      {
        role: 'bot',
        message: 'It has shipped.',
        time: start + 4000,
        endTime: start + 5000,
        secondsFromStart: 4,
      },
    ],
  };
}

export interface FakeProviders {
  url: string;
  hits: Map<string, number>;
  /** Text chat traffic (the provider simulation channel). */
  chat: ChatLog;
  /** The voice agents (with the `voice` option): one brain record per audio call. */
  voice: { brains: FakeBrainRecord[]; mediaStreamUrl: string } | null;
  /** Requests that could change something at the provider (anything but GET and the list/search POSTs). */
  writes: string[];
  state: {
    vapiAssistant: Json;
    /** The agents the other providers answer (a test changes a field between syncs). */
    retellAgent: Json;
    retellLlm: Json;
    elevenAgent: Json;
    blandAgent: Json;
    vapiCalls: Json[];
    retellCalls: Json[];
    elevenConversations: Json[];
    /** Paths (prefix) that answer 429 with Retry-After once. */
    throttleOnce: Set<string>;
    /** Paths (prefix) that answer 500 once. */
    failOnce: Set<string>;
    /** From this many call-list requests on, listing answers 500 (null: never). */
    failCallListsAfter: number | null;
    callListRequests: number;
    /** Every request answers 401. */
    revoked: boolean;
  };
  stop(): Promise<void>;
}

export interface FakeProvidersOptions {
  /**
   * Also serve the providers' voice protocols (Vapi's call socket, ElevenLabs in audio mode,
   * Bland's web-agent socket, Twilio Media Streams at /media-stream), run by a voice brain with
   * these options: agents connected through our API keep this server as their base URL.
   */
  voice?: BrainOptions;
}

export async function startFakeProviders(
  options: FakeProvidersOptions = {},
): Promise<FakeProviders> {
  if (options.voice) await prepareSpeech(options.voice, [16000, 8000]);
  const voice = options.voice
    ? createVoiceFakes({ brain: options.voice, key: GOOD_KEY, elevenSignature: 'sig123' })
    : null;
  const hits = new Map<string, number>();
  const chat = newChatLog();
  const writes: string[] = [];
  const state: FakeProviders['state'] = {
    vapiAssistant: {
      id: 'asst_1',
      orgId: 'org',
      name: 'Support Sam',
      firstMessage: 'Hi, this is Sam.',
      firstMessageMode: 'assistant-speaks-first',
      model: {
        provider: 'openai',
        model: 'gpt-4o',
        temperature: 0.3,
        maxTokens: 250,
        toolIds: ['tool_a'],
        messages: [{ role: 'system', content: 'You are Sam, a support agent.' }],
        tools: [
          {
            type: 'transferCall',
            function: { name: 'transfer' },
            destinations: [{ type: 'number', number: '+15550100' }],
          },
          {
            type: 'query',
            function: { name: 'faq' },
            knowledgeBases: [{ id: 'kb_1', name: 'FAQ' }],
          },
        ],
      },
      voice: {
        provider: '11labs',
        voiceId: 'voice_x',
        stability: 0.5,
        similarityBoost: 0.75,
        unknownSetting: 3,
      },
      newVapiFeature: { anything: true },
    },
    retellAgent: {
      agent_id: 'ret_1',
      agent_name: 'Retail Rita',
      version: 3,
      voice_id: '11labs-Adrian',
      voice_temperature: 1,
      language: 'en-US',
      response_engine: { type: 'retell-llm', llm_id: 'llm_1' },
      webhook_url: null,
    },
    retellLlm: {
      llm_id: 'llm_1',
      general_prompt: 'You are Rita.',
      begin_message: 'Hello from Rita',
      model: 'gpt-4o-mini',
      model_temperature: 0.2,
      knowledge_base_ids: ['kbr_1'],
      general_tools: [
        {
          type: 'custom',
          name: 'check_stock',
          description: 'Stock lookup',
          url: 'https://shop.example/stock',
          method: 'GET',
          headers: { Authorization: 'Bearer x' },
        },
        {
          type: 'transfer_call',
          name: 'to_human',
          transfer_destination: { type: 'predefined', number: '+15550199' },
        },
        { type: 'end_call', name: 'end' },
      ],
    },
    elevenAgent: {
      agent_id: 'el_1',
      name: 'Eleven Eve',
      tags: ['prod', 'billing'],
      phone_numbers: [{ phone_number: '+15550400', provider: 'twilio', label: 'Billing line' }],
      conversation_config: {
        agent: {
          first_message: 'Hi, Eve here',
          language: 'en',
          prompt: {
            prompt: 'You are Eve.',
            llm: 'gemini-2.0-flash',
            temperature: 0.4,
            max_tokens: -1,
            tool_ids: ['elt_1'],
            knowledge_base: [{ id: 'kbe_1', name: 'Billing FAQ', type: 'file' }],
          },
        },
        tts: {
          voice_id: 'eve_voice',
          model_id: 'eleven_turbo_v2',
          stability: 0.6,
          similarity_boost: 0.8,
        },
      },
    },
    blandAgent: {
      agent: {
        agent_id: 'bl_1',
        name: 'Bland Bob',
        prompt: 'You are Bob.',
        first_sentence: 'Bob here.',
        model: 'enhanced',
        temperature: 0.7,
        voice: 'maya',
        tools: [
          {
            name: 'lookup',
            description: 'Look up',
            url: 'https://b.example/l',
            method: 'POST',
          },
        ],
      },
    },
    vapiCalls: [],
    retellCalls: [],
    elevenConversations: [],
    throttleOnce: new Set(),
    failOnce: new Set(),
    failCallListsAfter: null,
    callListRequests: 0,
    revoked: false,
  };

  const server = createServer(
    handled(async (req, res) => {
      const url = new URL(req.url!, 'http://x');
      const path = url.pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (req.method !== 'GET' && path !== '/v3/list-calls') writes.push(`${req.method} ${path}`);
      let raw = '';
      for await (const c of req) raw += c;
      const body = raw ? JSON.parse(raw) : {};
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      const key = String(req.headers.authorization ?? req.headers['xi-api-key'] ?? '').replace(
        /^Bearer /,
        '',
      );
      if (state.revoked || key !== GOOD_KEY) return send(401, { message: 'Invalid key' });
      const voiceRequest = { method: req.method!, path, headers: req.headers, body };
      if (voice?.http({ ...voiceRequest, host: String(req.headers.host) }, send)) return;
      const throttled = [...state.throttleOnce].find((p) => path.startsWith(p));
      if (throttled) {
        state.throttleOnce.delete(throttled);
        return send(429, { message: 'slow down' }, { 'retry-after': '1' });
      }
      const failing = [...state.failOnce].find((p) => path.startsWith(p));
      if (failing) {
        state.failOnce.delete(failing);
        return send(500, { message: 'internal' });
      }
      const isCallList =
        path === '/call' ||
        path === '/v3/list-calls' ||
        path === '/v1/convai/conversations' ||
        path === '/v1/calls';
      if (isCallList) {
        state.callListRequests++;
        if (state.failCallListsAfter !== null && state.callListRequests > state.failCallListsAfter)
          return send(500, { message: 'internal' });
      }

      if (handleProviderChat(path, req.method!, body, String(req.headers.host), chat, send)) return;

      // Vapi
      if (path === '/assistant/asst_1') return send(200, state.vapiAssistant);
      if (path.startsWith('/assistant/')) return send(404, { message: 'Not found' });
      if (path === '/tool/tool_a')
        return send(200, {
          id: 'tool_a',
          type: 'function',
          function: { name: 'order_status', description: 'Looks up an order', parameters: {} },
          server: { url: 'https://crm.example/tools', secret: 's' },
        });
      if (path === '/phone-number')
        return send(200, [
          {
            id: 'pn1',
            number: '+15550001',
            provider: 'twilio',
            name: 'Main',
            assistantId: 'asst_1',
          },
          { id: 'pn2', number: '+15550002', provider: 'vapi', assistantId: 'other' },
        ]);
      if (path === '/v2/knowledge-base')
        return send(200, [
          { id: 'kb_1', name: 'FAQ', provider: 'trieve' },
          { id: 'kb_2', name: 'Other' },
        ]);
      if (path === '/call') {
        const gt = Date.parse(url.searchParams.get('createdAtGt') ?? '1970-01-01');
        const lt = url.searchParams.get('createdAtLt')
          ? Date.parse(url.searchParams.get('createdAtLt')!)
          : Infinity;
        const limit = Number(url.searchParams.get('limit') ?? 100);
        const page = state.vapiCalls
          .filter(
            (c) =>
              c.assistantId === url.searchParams.get('assistantId') &&
              Date.parse(c.createdAt) > gt &&
              Date.parse(c.createdAt) < lt,
          )
          .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
          .slice(0, limit);
        return send(200, page);
      }

      // Retell
      if (path === '/get-agent/ret_1') return send(200, state.retellAgent);
      if (path === '/get-retell-llm/llm_1') return send(200, state.retellLlm);
      if (path === '/v2/list-phone-numbers')
        return send(200, {
          items: [
            {
              phone_number: '+15550300',
              nickname: 'Shop',
              inbound_agents: [{ agent_id: 'ret_1', weight: 1 }],
            },
          ],
          has_more: false,
        });
      if (path === '/list-knowledge-bases')
        return send(200, [{ knowledge_base_id: 'kbr_1', knowledge_base_name: 'Catalog' }]);
      if (path === '/v3/list-calls') {
        const from = body.filter_criteria?.start_timestamp?.value?.[0] ?? 0;
        const all = state.retellCalls
          .filter((c) => c.start_timestamp >= from)
          .sort((a, b) => a.start_timestamp - b.start_timestamp);
        const offset = Number(body.pagination_key ?? 0);
        const items = all
          .slice(offset, offset + body.limit)
          .map(({ transcript_with_tool_calls: _t, ...rest }) => rest);
        return send(200, {
          items,
          has_more: offset + body.limit < all.length,
          pagination_key: String(offset + body.limit),
        });
      }
      if (path.startsWith('/v2/get-call/')) {
        const call = state.retellCalls.find(
          (c) => c.call_id === decodeURIComponent(path.slice(13)),
        );
        return call ? send(200, call) : send(404, {});
      }

      // ElevenLabs
      if (path === '/v1/convai/agents/el_1') return send(200, state.elevenAgent);
      if (path === '/v1/convai/tools/elt_1') {
        return send(200, {
          id: 'elt_1',
          tool_config: {
            type: 'webhook',
            name: 'refund',
            description: 'Issue a refund',
            api_schema: {
              url: 'https://pay.example/refund',
              method: 'POST',
              request_headers: { 'X-API-Key': 'k' },
            },
          },
        });
      }
      if (path === '/v1/convai/conversations') {
        const after = Number(url.searchParams.get('call_start_after_unix') ?? 0);
        const all = state.elevenConversations.filter(
          (c) => c.metadata.start_time_unix_secs >= after,
        );
        const offset = Number(url.searchParams.get('cursor') ?? 0);
        const size = Number(url.searchParams.get('page_size'));
        return send(200, {
          conversations: all.slice(offset, offset + size).map((c) => ({
            conversation_id: c.conversation_id,
            agent_id: 'el_1',
            status: c.status,
          })),
          has_more: offset + size < all.length,
          next_cursor: String(offset + size),
        });
      }
      if (path.startsWith('/v1/convai/conversations/')) {
        const c = state.elevenConversations.find((x) => x.conversation_id === path.slice(25));
        return c ? send(200, c) : send(404, {});
      }

      // Bland
      if (path === '/v1/agents/bl_1') return send(200, state.blandAgent);
      if (path === '/v1/agents/bl_2') {
        return send(200, {
          agent: {
            agent_id: 'bl_2',
            name: 'Pathway Pat',
            prompt: 'You are Pat.',
            first_sentence: null,
            pathway_id: 'pw_1',
            tools: [],
          },
        });
      }
      if (path === '/v1/calls') {
        const t = Date.now() - 3_600_000; // one base time, so that the gaps between turns are exact
        return send(200, {
          count: 1,
          calls: [
            {
              call_id: 'bc_1',
              agent_id: 'bl_1',
              created_at: new Date(t).toISOString(),
              call_length: 1.5,
              price: 0.135,
              summary: 'Short call',
              call_ended_by: 'USER',
              completed: true,
              recording_url: null,
              transcripts: [
                { created_at: new Date(t + 1000).toISOString(), text: 'Hello', user: 'user' },
                {
                  created_at: new Date(t + 3000).toISOString(),
                  text: 'Hi there',
                  user: 'assistant',
                },
                { text: 'lookup called', user: 'agent-action' },
              ],
            },
          ],
        });
      }
      return send(404, { message: `no fake for ${path}` });
    }),
  );
  const elevenUpgrade = elevenSocketUpgrade(chat, voice?.elevenAudio);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (elevenUpgrade(req, socket, head) || voice?.upgrade(req, socket, head)) return;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    chat,
    voice: voice && { brains: voice.brains, mediaStreamUrl: `ws://127.0.0.1:${port}/media-stream` },
    writes,
    state,
    stop: () =>
      new Promise((r) => {
        voice?.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
