import { invalidField } from '../errors.js';
import { blockedUrl } from '../net/guard.js';
import { isTooLarge, outbound } from '../net/outbound.js';
import type { ConnectionTest } from '../domain/providers.js';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';
import { sealCredentials, type AgentCredentials } from './credentials.js';
import { ProviderError } from './client.js';
import { arr, functionToolCall, obj, str, type Json } from './read.js';
import type { AgentSnapshot, CallToolCall, ChatSession } from './types.js';

/** An agent built in-house has nothing to sync: its configuration lives where it runs. */
const EMPTY_SNAPSHOT = (name: string): AgentSnapshot => ({
  name,
  description: null,
  configuration: {
    model: { provider: null, name: null, temperature: null, maxTokens: null },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt: null,
    firstMessage: null,
    tools: [],
  },
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: true,
});

export interface HttpAgentInput {
  name: string;
  baseUrl: string;
  apiKey?: string;
  format: 'openai' | 'simple';
  model?: string;
  /** Where it takes audio calls (Twilio Media Streams over WebSocket). */
  websocketUrl?: string;
}

/**
 * A team server refuses an agent at an internal address when it is connected, rather than at its
 * first simulation (each request is checked again when it connects).
 */
async function refuseInternalUrls(input: HttpAgentInput): Promise<void> {
  const urls: [string, string | undefined][] = [
    ['credentials.base_url', input.baseUrl],
    ['credentials.websocket_url', input.websocketUrl],
  ];
  for (const [path, url] of urls) {
    const blocked = url ? await blockedUrl(url) : null;
    if (blocked) throw invalidField(path, `${url}: ${blocked.message}`);
  }
}

/** Connects (or reconnects, renewing how it is reached) an agent reached at a URL of the tester's. */
export async function connectHttpAgent(
  store: Store,
  secrets: SecretBox,
  clock: Clock,
  input: HttpAgentInput,
): Promise<{ agent: AgentRecord; created: boolean }> {
  await refuseInternalUrls(input);
  const credentials = sealCredentials(secrets, {
    baseUrl: input.baseUrl,
    apiKey: input.apiKey,
    format: input.format,
    model: input.model,
    websocketUrl: input.websocketUrl,
  });
  const existing = await store.agents.findByProvider('http', input.name);
  const now = isoNow(clock);
  if (existing) {
    await store.agents.update(existing.id, {
      credentials,
      status: 'active',
      channel: 'http',
      updated_at: now,
    });
    return { agent: (await store.agents.get(existing.id))!, created: false };
  }
  const agent = await store.agents.insert({
    id: newId('agt', clock.now()),
    provider: 'http',
    providerAgentId: input.name,
    name: input.name,
    status: 'active',
    description: null,
    snapshot: EMPTY_SNAPSHOT(input.name),
    overrides: {},
    channel: 'http',
    credentials,
    tags: [],
    syncStatus: 'idle',
    lastSyncedAt: null,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
  });
  return { agent, created: true };
}

/** The URL requests go to: an OpenAI-compatible base gets `/chat/completions` appended. */
function endpointOf(creds: AgentCredentials): string {
  const base = creds.baseUrl ?? '';
  if (creds.format !== 'openai' || /\/chat\/completions\/?$/.test(base)) return base;
  return `${base.replace(/\/+$/, '')}/chat/completions`;
}

/** What the agent answered, in either format: its words, whether it ended, the tools it called. */
function readReply(
  format: AgentCredentials['format'],
  data: Json,
): { reply: string | null; ended: boolean; toolCalls: CallToolCall[] } {
  if (format === 'openai') {
    const message = obj(obj(arr(data.choices)[0]).message);
    return {
      reply: typeof message.content === 'string' ? message.content : null,
      ended: false,
      toolCalls: arr(message.tool_calls).map(obj).map(functionToolCall),
    };
  }
  return {
    reply: typeof data.reply === 'string' ? data.reply : null,
    ended: data.ended === true,
    toolCalls: arr(data.toolCalls)
      .map(obj)
      .map((tc) => ({
        name: str(tc.name) ?? 'unknown',
        arguments: tc.arguments ?? null,
        result: tc.result ?? null,
        success: typeof tc.success === 'boolean' ? tc.success : null,
        latencyMs: null,
      })),
  };
}

/**
 * A conversation with an agent at a URL: an OpenAI-compatible chat completions endpoint, or a
 * plain JSON one (`{messages}` in, `{reply, ended?, toolCalls?}` out). The whole history is sent
 * each turn, as both shapes are stateless.
 */
export function httpAgentChat(creds: AgentCredentials, timeoutMs: number): ChatSession {
  const url = endpointOf(creds);
  const history: { role: 'user' | 'assistant'; content: string }[] = [];
  return {
    firstMessage: null,
    async send(text, signal) {
      history.push({ role: 'user', content: text });
      const body =
        creds.format === 'openai'
          ? { model: creds.model ?? 'default', messages: history }
          : { messages: history };
      let res;
      try {
        res = await outbound.post(url, body, {
          headers: {
            'content-type': 'application/json',
            ...(creds.apiKey ? { authorization: `Bearer ${creds.apiKey}` } : {}),
          },
          timeout: timeoutMs,
          validateStatus: () => true,
          responseType: 'json',
          signal,
        });
      } catch (err) {
        if (isTooLarge(err))
          throw new ProviderError(
            'bad_response',
            `response_too_large: the agent at ${url} answered more than the cap (network.maxResponseMiB)`,
          );
        throw new ProviderError(
          'unavailable',
          `The agent at ${url} could not be reached: ${(err as Error).message}`,
        );
      }
      if (res.status >= 300)
        throw new ProviderError(
          res.status === 401 || res.status === 403 ? 'auth' : 'bad_response',
          `The agent at ${url} answered ${res.status}`,
          res.status,
        );
      const { reply, ended, toolCalls } = readReply(creds.format, obj(res.data));
      if (reply === null && toolCalls.length === 0) {
        throw new ProviderError(
          'bad_response',
          creds.format === 'openai'
            ? `The agent at ${url} answered no choices[0].message.content`
            : `The agent at ${url} answered no "reply" string`,
        );
      }
      history.push({ role: 'assistant', content: reply ?? '' });
      return { text: reply ?? '', ended, toolCalls };
    },
    async close() {},
  };
}

/**
 * Tests an agent at its own URL without a conversation (which would cost the agent a model
 * call): the port must accept connections and the URL answer HTTP; 401 and 403 say the
 * credentials were refused. Any other answer (a 405 to GET, say) means it is there.
 */
export async function probeHttpAgent(creds: AgentCredentials): Promise<ConnectionTest> {
  const url = endpointOf(creds);
  const began = Date.now();
  const took = () => Date.now() - began;
  try {
    const res = await outbound.get(url, {
      headers: creds.apiKey ? { authorization: `Bearer ${creds.apiKey}` } : {},
      timeout: 5_000,
      validateStatus: () => true,
      maxRedirects: 0,
    });
    if (res.status === 401 || res.status === 403)
      return {
        ok: false,
        latencyMs: took(),
        message: `${url} refused the credentials (${res.status})`,
      };
    if (res.status >= 500)
      return { ok: false, latencyMs: took(), message: `${url} answered ${res.status}` };
    return { ok: true, latencyMs: took(), message: `${url} answered ${res.status}` };
  } catch (err) {
    const refused = (err as { code?: string }).code === 'ECONNREFUSED';
    return {
      ok: false,
      latencyMs: took(),
      message: refused
        ? `${url} refuses connections`
        : `${url} could not be reached: ${(err as Error).message}`,
    };
  }
}
