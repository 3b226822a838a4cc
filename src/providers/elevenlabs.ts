import { elevenLabsChat } from './elevenlabs-chat.js';
import { DEFAULT_RETRY, providerClient, type RetryPolicy } from './client.js';
import { arr, bool, iso, num, obj, parsedWhenJson, str, text, type Json } from './read.js';
import { rawRecord } from './raw-record.js';
import type {
  AgentSnapshot,
  AgentTool,
  ImportedToolCall,
  NormalizedCall,
  ProviderAdapter,
  ProviderContext,
  TranscriptTurn,
} from './types.js';

const PAGE = 100;

function normalizeConversation(c: Json): NormalizedCall {
  const meta = obj(c.metadata);
  const startedAt = iso(meta.start_time_unix_secs, true);
  const seconds = num(meta.call_duration_secs);
  const durationMs = seconds === null ? null : Math.round(seconds * 1000);
  const turns = arr(c.transcript).map(obj);
  const transcript: TranscriptTurn[] = [];
  const tools = new Map<string, ImportedToolCall>();
  turns.forEach((t, i) => {
    const at = num(t.time_in_call_secs);
    const next = num(turns[i + 1]?.time_in_call_secs);
    // A tool call is asked in the turn that lists it: it sits at that turn's time in the call.
    const atMs = at === null ? null : Math.round(at * 1000);
    if ((t.role === 'user' || t.role === 'agent') && str(t.message)) {
      transcript.push({
        role: t.role,
        text: String(t.message),
        startMs: at === null ? null : Math.round(at * 1000),
        endMs: next === null ? null : Math.round(next * 1000),
      });
    }
    for (const tc of arr(t.tool_calls).map(obj)) {
      tools.set(String(tc.request_id), {
        name: str(tc.tool_name) ?? 'unknown',
        arguments: parsedWhenJson(tc.params_as_json),
        result: null,
        success: null,
        latencyMs: null,
        atMs,
      });
    }
    for (const tr of arr(t.tool_results).map(obj)) {
      const call = tools.get(String(tr.request_id)) ?? {
        name: str(tr.tool_name) ?? 'unknown',
        arguments: null,
        result: null,
        success: null,
        latencyMs: null,
        atMs,
      };
      call.result = parsedWhenJson(tr.result_value);
      call.success = typeof tr.is_error === 'boolean' ? !tr.is_error : null;
      const latency = num(tr.tool_latency_secs);
      call.latencyMs = latency === null ? null : Math.round(latency * 1000);
      tools.set(String(tr.request_id), call);
    }
  });
  const analysis = obj(c.analysis);
  const cost = num(meta.cost);
  return {
    providerCallId: String(c.conversation_id),
    startedAt,
    endedAt:
      startedAt && durationMs !== null
        ? new Date(Date.parse(startedAt) + durationMs).toISOString()
        : null,
    durationMs,
    endReason: str(meta.termination_reason),
    // ElevenLabs bills agent minutes in credits, not a currency.
    cost: null,
    costOriginal: cost === null ? null : { amount: cost, unit: 'credits' },
    recordingUrl: null,
    summary: str(analysis.transcript_summary),
    successful: bool(analysis.call_successful),
    transcript,
    toolCalls: [...tools.values()],
    providerError: c.status === 'failed' ? (str(meta.termination_reason) ?? 'failed') : null,
  };
}

/** A tool of the agent as the snapshot lists it; the auth kind is read from its request headers. */
function agentToolOf(t: Json): AgentTool {
  const api = obj(t.api_schema);
  const headers = obj(api.request_headers);
  return {
    name: String(t.name),
    description: str(t.description),
    type: str(t.type),
    endpoint: str(api.url),
    method: str(api.method),
    auth:
      headers.Authorization || headers.authorization
        ? 'bearer_token'
        : headers['xi-api-key'] || headers['X-API-Key']
          ? 'api_key'
          : 'none',
  };
}

/** What ElevenLabs answered about an agent, with its tools, as a snapshot. */
function snapshotOf(found: { agent: Json; agentId: string; tools: Json[] }): AgentSnapshot {
  const { agent: a, agentId, tools } = found;
  const conv = obj(a.conversation_config);
  const agent = obj(conv.agent);
  const prompt = obj(agent.prompt);
  const tts = obj(conv.tts);
  const maxTokens = num(prompt.max_tokens);
  return {
    name: str(a.name) ?? agentId,
    description: str(obj(a.metadata).description) ?? str(a.description),
    configuration: {
      model: {
        provider: null,
        name: str(prompt.llm),
        temperature: num(prompt.temperature),
        maxTokens: maxTokens === null || maxTokens < 0 ? null : maxTokens,
      },
      voice: {
        provider: 'elevenlabs',
        voiceId: str(tts.voice_id),
        stability: num(tts.stability),
        similarityBoost: num(tts.similarity_boost),
      },
      prompt: str(prompt.prompt),
      firstMessage: str(agent.first_message),
      tools: tools.filter((t) => str(t.name) && t.type !== 'system').map(agentToolOf),
    },
    phoneNumbers: arr(a.phone_numbers)
      .map(obj)
      .map((p) => ({
        number: text(p.phone_number),
        provider: str(p.provider),
        name: str(p.label),
      })),
    knowledgeBases: arr(prompt.knowledge_base)
      .map(obj)
      .map((k) => ({ id: String(k.id), name: str(k.name) })),
    routingRules: tools
      .filter(
        (t) =>
          t.type === 'system' && /transfer/.test(String(obj(t.params).system_tool_type ?? t.name)),
      )
      .map((t) => ({
        name: String(t.name),
        destinations: arr(obj(t.params).transfers)
          .map((x) => text(obj(x).phone_number ?? obj(x).agent_id))
          .filter(Boolean),
      })),
    tags: arr(a.tags).filter((t): t is string => typeof t === 'string'),
    textChat: true,
    raw: rawRecord('elevenlabs', a),
  };
}

export function elevenLabsAdapter(policy?: RetryPolicy): ProviderAdapter {
  const client = (ctx: ProviderContext) =>
    providerClient(ctx.baseUrl, { 'xi-api-key': ctx.apiKey }, policy);
  return {
    name: 'elevenlabs',
    defaultBaseUrl: 'https://api.elevenlabs.io',
    async fetchAgent(ctx, agentId) {
      const call = client(ctx);
      const a = obj(await call({ path: `/v1/convai/agents/${encodeURIComponent(agentId)}` }));
      const conv = obj(a.conversation_config);
      const agent = obj(conv.agent);
      const prompt = obj(agent.prompt);
      const referenced = await Promise.all(
        arr(prompt.tool_ids).map((id) =>
          call({ path: `/v1/convai/tools/${encodeURIComponent(String(id))}` }).then(obj),
        ),
      );
      const tools = [
        ...referenced.map((t) => obj(t.tool_config ?? t)),
        ...arr(prompt.tools).map(obj),
      ];
      return snapshotOf({ agent: a, agentId, tools });
    },
    async *listCalls(ctx, agentId, sinceMs) {
      const call = client(ctx);
      let cursor: string | undefined;
      for (;;) {
        const page = obj(
          await call({
            path: '/v1/convai/conversations',
            query: {
              agent_id: agentId,
              page_size: PAGE,
              cursor,
              call_start_after_unix: Math.floor(sinceMs / 1000),
            },
          }),
        );
        const items = arr(page.conversations)
          .map(obj)
          .filter((c) => str(c.conversation_id));
        const full = await Promise.all(
          items.map((c) =>
            call({
              path: `/v1/convai/conversations/${encodeURIComponent(String(c.conversation_id))}`,
            }).then(obj),
          ),
        );
        yield full.map(normalizeConversation);
        if (!page.has_more || !str(page.next_cursor) || page.next_cursor === cursor) return;
        cursor = String(page.next_cursor);
      }
    },
    openChat(ctx, agentId, options) {
      return elevenLabsChat(
        client(ctx),
        agentId,
        options.expectsFirstMessage,
        (policy ?? DEFAULT_RETRY).timeoutMs,
      );
    },
  };
}
