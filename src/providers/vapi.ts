import { vapiChat } from './chat.js';
import { providerClient } from './client.js';
import {
  arr,
  bool,
  durationBetween,
  functionToolCall,
  iso,
  num,
  obj,
  parsedWhenJson,
  str,
  text,
  type Json,
} from './read.js';
import type {
  AgentSnapshot,
  AgentTool,
  ImportedToolCall,
  NormalizedCall,
  ProviderAdapter,
  ProviderContext,
  TranscriptTurn,
} from './types.js';
import type { RetryPolicy } from './client.js';
import { rawRecord } from './raw-record.js';

const PAGE = 100;

function toolOf(t: Json): AgentTool | null {
  const fn = obj(t.function);
  const name = str(fn.name) ?? str(t.name);
  if (!name) return null;
  return {
    name,
    description: str(fn.description) ?? str(t.description),
    type: str(t.type),
    endpoint: str(obj(t.server).url) ?? str(t.url),
    method: str(t.method) ?? (t.type === 'function' ? 'POST' : null),
    auth:
      obj(t.server).secret || obj(obj(t.server).headers).Authorization ? 'bearer_token' : 'none',
  };
}

/** A spoken message as a transcript turn, its times from the call's start; null without words. */
function turnOf(m: Json, start: number | null): TranscriptTurn | null {
  const message = str(m.message);
  if (!message) return null;
  const fromStart = num(m.secondsFromStart);
  const time = num(m.time);
  const endTime = num(m.endTime);
  const duration = num(m.duration);
  const at =
    fromStart !== null ? fromStart * 1000 : time !== null && start !== null ? time - start : null;
  const end =
    endTime !== null && start !== null
      ? endTime - start
      : at !== null && duration !== null
        ? at + duration
        : null;
  return {
    role: m.role === 'user' ? 'user' : 'agent',
    text: message,
    startMs: at === null ? null : Math.round(at),
    endMs: end === null ? null : Math.round(end),
  };
}

/** Ms from the call's start of a message: its `secondsFromStart`, else its epoch `time`. */
function msFromStart(m: Json, start: number | null): number | null {
  const fromStart = num(m.secondsFromStart);
  if (fromStart !== null) return Math.round(fromStart * 1000);
  const time = num(m.time);
  return time !== null && start !== null ? Math.round(time - start) : null;
}

/**
 * The call's transcript and tool calls from its messages. A tool call is placed at the time of
 * the `tool_calls` message that asked for it; its latency runs from that message to the one with
 * its result.
 */
function readMessages(
  messages: unknown[],
  start: number | null,
): { transcript: TranscriptTurn[]; toolCalls: ImportedToolCall[] } {
  const transcript: TranscriptTurn[] = [];
  // Each call with the time it was asked at, kept beside it so that the call needs no copy.
  const calls = new Map<string, { call: ImportedToolCall; at: number | null }>();
  for (const item of messages) {
    const m = obj(item);
    if (m.role === 'user' || m.role === 'bot' || m.role === 'assistant') {
      const turn = turnOf(m, start);
      if (turn) transcript.push(turn);
    } else if (m.role === 'tool_calls') {
      const atMs = msFromStart(m, start);
      for (const tc of arr(m.toolCalls))
        calls.set(String(obj(tc).id), {
          call: { ...functionToolCall(obj(tc)), atMs },
          at: num(m.time),
        });
    } else if (m.role === 'tool_call_result') {
      const asked = calls.get(String(m.toolCallId));
      if (asked) {
        const { call, at } = asked;
        call.result = parsedWhenJson(m.result);
        call.success = m.error ? false : m.result !== undefined;
        const time = num(m.time);
        call.latencyMs = at !== null && time !== null ? time - at : null;
      }
    }
  }
  return { transcript, toolCalls: Array.from(calls.values(), (asked) => asked.call) };
}

function normalizeCall(c: Json): NormalizedCall {
  const cost = num(c.cost);
  const startedAt = iso(c.startedAt);
  const endedAt = iso(c.endedAt);
  const start = startedAt ? Date.parse(startedAt) : null;
  const { transcript, toolCalls } = readMessages(
    arr(c.messages ?? obj(c.artifact).messages),
    start,
  );
  const analysis = obj(c.analysis);
  const ended = str(c.endedReason);
  return {
    providerCallId: String(c.id),
    startedAt,
    endedAt,
    durationMs: durationBetween(startedAt, endedAt),
    endReason: ended,
    cost,
    costOriginal: cost === null ? null : { amount: cost, unit: 'USD' },
    recordingUrl: str(obj(c.artifact).recordingUrl) ?? str(c.recordingUrl),
    summary: str(analysis.summary),
    successful: bool(analysis.successEvaluation),
    transcript,
    toolCalls,
    providerError: ended && /error|failed/i.test(ended) ? ended : null,
  };
}

/** What Vapi answered about an assistant, with its tools, numbers and knowledge bases, as a snapshot. */
function snapshotOf(found: {
  assistant: Record<string, unknown>;
  agentId: string;
  tools: Record<string, unknown>[];
  numbers: Record<string, unknown>[];
  knowledgeBases: Record<string, unknown>[];
}): AgentSnapshot {
  const { assistant: a, agentId, tools: allTools, numbers, knowledgeBases: kbs } = found;
  const model = obj(a.model);
  const voice = obj(a.voice);
  return {
    name: str(a.name) ?? agentId,
    description: null,
    configuration: {
      model: {
        provider: str(model.provider),
        name: str(model.model),
        temperature: num(model.temperature),
        maxTokens: num(model.maxTokens),
      },
      voice: {
        provider: str(voice.provider),
        voiceId: str(voice.voiceId),
        stability: num(voice.stability),
        similarityBoost: num(voice.similarityBoost),
      },
      prompt: str(
        arr(model.messages)
          .map(obj)
          .find((m) => m.role === 'system')?.content,
      ),
      firstMessage: str(a.firstMessage),
      tools: allTools
        .filter((t) => t.type !== 'transferCall')
        .map(toolOf)
        .filter((t): t is AgentTool => t !== null),
    },
    phoneNumbers: numbers.map((p) => ({
      number: text(p.number),
      provider: str(p.provider),
      name: str(p.name),
    })),
    knowledgeBases: kbs.map((k) => ({ id: String(k.id), name: str(k.name) })),
    routingRules: allTools
      .filter((t) => t.type === 'transferCall')
      .map((t) => ({
        name: str(obj(t.function).name) ?? 'transferCall',
        destinations: arr(t.destinations)
          .map((d) => text(obj(d).number ?? obj(d).assistantName ?? obj(d).sipUri))
          .filter(Boolean),
      })),
    tags: [],
    textChat: true,
    raw: rawRecord('vapi', a),
  };
}

export function vapiAdapter(policy?: RetryPolicy): ProviderAdapter {
  const client = (ctx: ProviderContext) =>
    providerClient(ctx.baseUrl, { authorization: `Bearer ${ctx.apiKey}` }, policy);
  return {
    name: 'vapi',
    defaultBaseUrl: 'https://api.vapi.ai',
    async fetchAgent(ctx, agentId) {
      const call = client(ctx);
      const a = obj(await call({ path: `/assistant/${encodeURIComponent(agentId)}` }));
      const model = obj(a.model);
      const referenced = await Promise.all(
        arr(model.toolIds).map((id) =>
          call({ path: `/tool/${encodeURIComponent(String(id))}` }).then(obj),
        ),
      );
      const allTools = [...referenced, ...arr(model.tools).map(obj)];
      const numbers = arr(await call({ path: '/phone-number' }))
        .map(obj)
        .filter((p) => p.assistantId === agentId);
      const kbIds = new Set(
        allTools
          .filter((t) => t.type === 'query')
          .flatMap((t) => arr(t.knowledgeBases).map((k) => String(obj(k).id ?? obj(k).name))),
      );
      const kbs = kbIds.size
        ? arr(await call({ path: '/v2/knowledge-base' }))
            .map(obj)
            .filter((k) => kbIds.has(String(k.id)) || kbIds.has(String(k.name)))
        : [];
      return snapshotOf({ assistant: a, agentId, tools: allTools, numbers, knowledgeBases: kbs });
    },
    async *listCalls(ctx, agentId, sinceMs) {
      const call = client(ctx);
      // No cursor: newest first, then backwards from the oldest createdAt of the last page.
      let before: string | undefined;
      for (;;) {
        const page = arr(
          await call({
            path: '/call',
            query: {
              assistantId: agentId,
              limit: PAGE,
              createdAtGt: new Date(sinceMs).toISOString(),
              createdAtLt: before,
            },
          }),
        ).map(obj);
        if (page.length === 0) return;
        yield page.filter((c) => c.id).map(normalizeCall);
        if (page.length < PAGE) return;
        const oldest = page
          .map((c) => text(c.createdAt))
          .filter(Boolean)
          .sort()[0];
        if (!oldest || oldest === before) return;
        before = oldest;
      }
    },
    openChat(ctx, agentId) {
      return Promise.resolve(vapiChat(client(ctx), agentId));
    },
  };
}
