import { blandChat } from './chat.js';
import { providerClient, type RetryPolicy } from './client.js';
import { arr, iso, num, obj, str, text, type Json } from './read.js';
import { rawRecord } from './raw-record.js';
import type {
  AgentSnapshot,
  NormalizedCall,
  ProviderAdapter,
  ProviderContext,
  TranscriptTurn,
} from './types.js';

const PAGE = 100;

function normalizeCall(c: Json): NormalizedCall {
  const startedAt = iso(c.started_at ?? c.created_at);
  const minutes = num(c.call_length);
  const durationMs = minutes === null ? null : Math.round(minutes * 60_000);
  const start = startedAt ? Date.parse(startedAt) : null;
  const transcript: TranscriptTurn[] = arr(c.transcripts)
    .map(obj)
    .filter((t) => (t.user === 'user' || t.user === 'assistant') && str(t.text))
    .map((t) => {
      const at = iso(t.created_at);
      return {
        role: t.user === 'user' ? ('user' as const) : ('agent' as const),
        text: String(t.text),
        startMs: at && start !== null ? Date.parse(at) - start : null,
        endMs: null,
      };
    });
  const price = num(c.price);
  return {
    providerCallId: String(c.call_id ?? c.c_id),
    startedAt,
    endedAt:
      iso(c.end_at) ??
      (startedAt && durationMs !== null
        ? new Date(Date.parse(startedAt) + durationMs).toISOString()
        : null),
    durationMs,
    endReason: str(c.call_ended_by) ?? str(c.status),
    cost: price,
    costOriginal: price === null ? null : { amount: price, unit: 'USD' },
    recordingUrl: str(c.recording_url),
    summary: str(c.summary),
    successful: typeof c.completed === 'boolean' ? c.completed : null,
    transcript,
    // Bland reports tool use as "agent-action" lines without arguments or results.
    toolCalls: [],
    providerError: str(c.error_message),
  };
}

/** What Bland answered about an agent, as a snapshot. */
function snapshotOf(a: Json, agentId: string): AgentSnapshot {
  const kbIds = new Set(
    arr(a.knowledge_bases ?? a.tools)
      .map((k) => (typeof k === 'string' ? k : text(obj(k).id)))
      .filter((k) => k.startsWith('KB-') || k.startsWith('kb')),
  );
  return {
    name: str(a.name) ?? agentId,
    description: str(a.description),
    configuration: {
      model: {
        provider: null,
        name: str(a.model),
        temperature: num(a.temperature),
        maxTokens: num(a.max_tokens),
      },
      voice: {
        provider: null,
        voiceId: str(a.voice) ?? str(a.voice_id),
        stability: null,
        similarityBoost: null,
      },
      prompt: str(a.prompt) ?? str(a.task),
      firstMessage: str(a.first_sentence),
      tools: arr(a.tools)
        .map(obj)
        .filter((t) => str(t.name))
        .map((t) => ({
          name: String(t.name),
          description: str(t.description),
          type: 'webhook',
          endpoint: str(t.url),
          method: str(t.method),
          auth:
            obj(t.headers).Authorization || obj(t.headers).authorization ? 'bearer_token' : 'none',
        })),
    },
    phoneNumbers: str(a.phone_number)
      ? [{ number: text(a.phone_number), provider: 'bland', name: null }]
      : [],
    knowledgeBases: [...kbIds].map((id) => ({ id, name: null })),
    routingRules: str(a.transfer_phone_number)
      ? [{ name: 'transfer', destinations: [text(a.transfer_phone_number)] }]
      : [],
    tags: [],
    textChat: str(a.pathway_id) !== null,
    raw: rawRecord('bland', a),
  };
}

/** Bland is documented least precisely: agents are read as web agents, the adapter is tolerant. */
export function blandAdapter(policy?: RetryPolicy): ProviderAdapter {
  const client = (ctx: ProviderContext) =>
    providerClient(ctx.baseUrl, { authorization: ctx.apiKey }, policy);
  return {
    name: 'bland',
    defaultBaseUrl: 'https://api.bland.ai',
    async fetchAgent(ctx, agentId) {
      const call = client(ctx);
      const raw = obj(await call({ path: `/v1/agents/${encodeURIComponent(agentId)}` }));
      const a = obj(raw.agent ?? raw);
      return snapshotOf(a, agentId);
    },
    async *listCalls(ctx, agentId, sinceMs) {
      const call = client(ctx);
      for (let from = 0; ; from += PAGE) {
        const page = obj(
          await call({
            path: '/v1/calls',
            query: {
              limit: PAGE,
              from,
              to: from + PAGE,
              agent_id: agentId,
              start_date: new Date(sinceMs).toISOString(),
            },
          }),
        );
        const items = arr(page.calls)
          .map(obj)
          .filter(
            (c) => str(c.call_id ?? c.c_id) && (c.agent_id === undefined || c.agent_id === agentId),
          );
        const recent = items.filter(
          (c) => (Date.parse(text(c.created_at ?? c.started_at)) || Infinity) >= sinceMs,
        );
        const full = await Promise.all(
          recent.map((c) =>
            c.transcripts
              ? Promise.resolve(c)
              : call({ path: `/v1/calls/${encodeURIComponent(String(c.call_id ?? c.c_id))}` }).then(
                  obj,
                ),
          ),
        );
        yield full.map(normalizeCall);
        if (arr(page.calls).length < PAGE) return;
      }
    },
    openChat(ctx, agentId) {
      return blandChat(client(ctx), agentId);
    },
  };
}
