import { retellChat } from './chat.js';
import { providerClient, type RetryPolicy } from './client.js';
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

function turnTimes(words: unknown): { startMs: number | null; endMs: number | null } {
  const list = arr(words).map(obj);
  const first = num(list[0]?.start);
  const last = num(list[list.length - 1]?.end);
  return {
    startMs: first === null ? null : Math.round(first * 1000),
    endMs: last === null ? null : Math.round(last * 1000),
  };
}

/**
 * The transcript and tool calls of `transcript_with_tool_calls`. Retell times words, not its
 * tool call invocations: an invocation sits between the utterances it came between, so it is
 * placed where the speech before it ended (the latest word end so far); null before any timed word.
 */
function readTranscript(items: Json[]): {
  transcript: TranscriptTurn[];
  toolCalls: ImportedToolCall[];
} {
  const transcript: TranscriptTurn[] = [];
  const tools = new Map<string, ImportedToolCall>();
  let spokenUntil: number | null = null;
  for (const t of items) {
    const content = str(t.content);
    if ((t.role === 'agent' || t.role === 'user') && content) {
      const times = turnTimes(t.words);
      transcript.push({ role: t.role, text: content, ...times });
      const reached = times.endMs ?? times.startMs;
      if (reached !== null) spokenUntil = Math.max(spokenUntil ?? 0, reached);
    } else if (t.role === 'tool_call_invocation')
      tools.set(String(t.tool_call_id), {
        name: str(t.name) ?? 'unknown',
        arguments: parsedWhenJson(t.arguments),
        result: null,
        success: null,
        latencyMs: null,
        atMs: spokenUntil,
      });
    else if (t.role === 'tool_call_result') {
      const call = tools.get(String(t.tool_call_id));
      if (call) {
        call.result = parsedWhenJson(t.content);
        call.success = typeof t.successful === 'boolean' ? t.successful : true;
      }
    }
  }
  return { transcript, toolCalls: [...tools.values()] };
}

function normalizeCall(c: Json): NormalizedCall {
  const items = arr(c.transcript_with_tool_calls).length
    ? arr(c.transcript_with_tool_calls)
    : arr(c.transcript_object);
  const { transcript, toolCalls } = readTranscript(items.map(obj));
  const cents = num(obj(c.call_cost).combined_cost);
  const analysis = obj(c.call_analysis);
  const reason = str(c.disconnection_reason);
  return {
    providerCallId: String(c.call_id),
    startedAt: iso(c.start_timestamp),
    endedAt: iso(c.end_timestamp),
    durationMs:
      num(c.duration_ms) ??
      (num(c.start_timestamp) !== null && num(c.end_timestamp) !== null
        ? num(c.end_timestamp)! - num(c.start_timestamp)!
        : null),
    endReason: reason,
    cost: cents === null ? null : cents / 100,
    costOriginal: cents === null ? null : { amount: cents, unit: 'cents' },
    recordingUrl: str(c.recording_url),
    summary: str(analysis.call_summary),
    successful: bool(analysis.call_successful),
    transcript,
    toolCalls,
    providerError:
      c.call_status === 'error' || (reason && /error/i.test(reason)) ? (reason ?? 'error') : null,
  };
}

const toolOf = (t: Json): AgentTool | null =>
  str(t.name)
    ? {
        name: String(t.name),
        description: str(t.description),
        type: str(t.type),
        endpoint: str(t.url),
        method: str(t.method) ?? (t.type === 'custom' ? 'POST' : null),
        auth:
          obj(t.headers).Authorization || obj(t.headers).authorization ? 'bearer_token' : 'none',
      }
    : null;

async function* cursorPages(
  call: ReturnType<typeof providerClient>,
  req: (key?: string) => Parameters<ReturnType<typeof providerClient>>[0],
): AsyncGenerator<Json[]> {
  let key: string | undefined;
  for (;;) {
    const page = obj(await call(req(key)));
    yield arr(page.items).map(obj);
    if (!page.has_more || !str(page.pagination_key) || page.pagination_key === key) return;
    key = String(page.pagination_key);
  }
}

/** What Retell answered about an agent and its LLM, with numbers and knowledge bases, as a snapshot. */
function snapshotOf(found: {
  agent: Json;
  llm: Json;
  agentId: string;
  numbers: Json[];
  knowledgeBases: Json[];
}): AgentSnapshot {
  const { agent: a, llm, agentId, numbers, knowledgeBases: kbs } = found;
  const tools = arr(llm.general_tools).map(obj);
  return {
    name: str(a.agent_name) ?? agentId,
    description: null,
    configuration: {
      // Retell names the model but not its vendor, and has no max-tokens or voice-stability settings.
      model: {
        provider: null,
        name: str(llm.model),
        temperature: num(llm.model_temperature),
        maxTokens: null,
      },
      voice: {
        provider: null,
        voiceId: str(a.voice_id),
        stability: null,
        similarityBoost: null,
      },
      prompt: str(llm.general_prompt),
      firstMessage: str(llm.begin_message),
      tools: tools
        .filter((t) => t.type !== 'transfer_call' && t.type !== 'end_call')
        .map(toolOf)
        .filter((t): t is AgentTool => t !== null),
    },
    phoneNumbers: numbers
      .filter(
        (p) =>
          arr(p.inbound_agents).some((x) => obj(x).agent_id === agentId) ||
          p.inbound_agent_id === agentId,
      )
      .map((p) => ({
        number: text(p.phone_number),
        provider: 'retell',
        name: str(p.nickname),
      })),
    knowledgeBases: kbs.map((k) => ({
      id: String(k.knowledge_base_id),
      name: str(k.knowledge_base_name),
    })),
    routingRules: tools
      .filter((t) => t.type === 'transfer_call')
      .map((t) => ({
        name: str(t.name) ?? 'transfer_call',
        destinations: [str(obj(t.transfer_destination).number) ?? str(t.number)].filter(
          (d): d is string => d !== null,
        ),
      })),
    tags: [],
    textChat: obj(a.response_engine).type === 'retell-llm',
    // The LLM's record under the engine that names it: prompt, model and tools live there.
    raw: rawRecord('retell', {
      ...a,
      response_engine: { ...obj(a.response_engine), ...(Object.keys(llm).length ? { llm } : {}) },
    }),
  };
}

export function retellAdapter(policy?: RetryPolicy): ProviderAdapter {
  const client = (ctx: ProviderContext) =>
    providerClient(ctx.baseUrl, { authorization: `Bearer ${ctx.apiKey}` }, policy);
  return {
    name: 'retell',
    defaultBaseUrl: 'https://api.retellai.com',
    async fetchAgent(ctx, agentId) {
      const call = client(ctx);
      const a = obj(await call({ path: `/get-agent/${encodeURIComponent(agentId)}` }));
      const engine = obj(a.response_engine);
      const llm =
        engine.type === 'retell-llm' && str(engine.llm_id)
          ? obj(
              await call({ path: `/get-retell-llm/${encodeURIComponent(String(engine.llm_id))}` }),
            )
          : {};
      const numbers: Json[] = [];
      for await (const page of cursorPages(call, (key) => ({
        path: '/v2/list-phone-numbers',
        query: { pagination_key: key },
      })))
        numbers.push(...page);
      const kbIds = new Set(arr(llm.knowledge_base_ids).map(String));
      const kbs = kbIds.size
        ? arr(await call({ path: '/list-knowledge-bases' }))
            .map(obj)
            .filter((k) => kbIds.has(String(k.knowledge_base_id)))
        : [];
      return snapshotOf({ agent: a, llm, agentId, numbers, knowledgeBases: kbs });
    },
    async *listCalls(ctx, agentId, sinceMs) {
      const call = client(ctx);
      const pages = cursorPages(call, (key) => ({
        method: 'POST',
        path: '/v3/list-calls',
        body: {
          limit: PAGE,
          pagination_key: key,
          sort_order: 'ascending',
          filter_criteria: {
            agent: [{ agent_id: agentId }],
            start_timestamp: { type: 'range', op: 'bt', value: [sinceMs, Date.now() + 86_400_000] },
          },
        },
      }));
      for await (const page of pages) {
        // List items may omit transcripts: read each call whole.
        const full = await Promise.all(
          page
            .filter((c) => str(c.call_id))
            .map((c) =>
              c.transcript_with_tool_calls
                ? Promise.resolve(c)
                : call({ path: `/v2/get-call/${encodeURIComponent(String(c.call_id))}` }).then(obj),
            ),
        );
        yield full.map(normalizeCall);
      }
    },
    openChat(ctx, agentId) {
      return Promise.resolve(retellChat(client(ctx), agentId));
    },
  };
}
