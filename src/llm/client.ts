import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { guardedFetch } from '../net/exchange.js';
import { blockedBy } from '../net/guard.js';
import { isTooLarge } from '../net/outbound.js';
import {
  DEFAULT_MODEL_POLICY,
  ModelError,
  type Completion,
  type CompletionRequest,
  type ModelClient,
  type ModelConnection,
  type ModelPolicy,
  type ToolCallRequest,
  type Usage,
} from './types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function parseArguments(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function openaiOnce(
  client: OpenAI,
  conn: ModelConnection,
  req: CompletionRequest,
  usage: Usage,
): Promise<Completion> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (req.system) messages.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    if (m.role === 'tool')
      messages.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
    else if (m.role === 'assistant' && m.toolCalls?.length) {
      messages.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((t) => ({
          id: t.id,
          type: 'function' as const,
          function: { name: t.name, arguments: JSON.stringify(t.arguments) },
        })),
      });
    } else messages.push({ role: m.role, content: m.content });
  }
  const res = await client.chat.completions.create({
    model: conn.model,
    messages,
    temperature: req.temperature,
    max_tokens: req.maxTokens,
    tools: req.tools?.length
      ? req.tools.map((t) => ({
          type: 'function' as const,
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }))
      : undefined,
    response_format: req.structured
      ? {
          type: 'json_schema' as const,
          json_schema: {
            name: req.structured.name,
            description: req.structured.description,
            schema: req.structured.schema,
            strict: true,
          },
        }
      : undefined,
  });
  usage.input_tokens += res.usage?.prompt_tokens ?? 0;
  // OpenAI counts cached prompt tokens inside prompt_tokens; they are priced apart.
  usage.cached_input_tokens += res.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  usage.output_tokens += res.usage?.completion_tokens ?? 0;
  const message = res.choices[0]?.message;
  const toolCalls: ToolCallRequest[] = (message?.tool_calls ?? [])
    .filter((t): t is OpenAI.Chat.ChatCompletionMessageFunctionToolCall => t.type === 'function')
    .map((t) => ({
      id: t.id,
      name: t.function.name,
      arguments: parseArguments(t.function.arguments),
    }));
  return { text: message?.content ?? '', toolCalls, model: conn.model };
}

/** The tools offered, and the structured answer as a tool the model must call (see StructuredAnswer). */
function anthropicTools(
  req: CompletionRequest,
): Pick<Anthropic.MessageCreateParamsNonStreaming, 'tools' | 'tool_choice'> {
  const tools: Anthropic.Tool[] = (req.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Tool.InputSchema,
  }));
  if (req.structured)
    tools.push({
      name: req.structured.name,
      description: req.structured.description,
      input_schema: req.structured.schema as Anthropic.Tool.InputSchema,
    });
  return {
    tools: tools.length ? tools : undefined,
    tool_choice: req.structured ? { type: 'tool', name: req.structured.name } : undefined,
  };
}

async function anthropicOnce(
  client: Anthropic,
  conn: ModelConnection,
  req: CompletionRequest,
  usage: Usage,
): Promise<Completion> {
  const messages: Anthropic.MessageParam[] = req.messages.map((m) => {
    if (m.role === 'tool')
      return {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }],
      };
    if (m.role === 'assistant' && m.toolCalls?.length) {
      return {
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.toolCalls.map((t) => ({
            type: 'tool_use' as const,
            id: t.id,
            name: t.name,
            input: t.arguments,
          })),
        ],
      };
    }
    return { role: m.role, content: m.content };
  });
  // This SDK's Messages API takes no temperature: a replica's temperature applies to OpenAI-compatible models only.
  const res = await client.messages.create({
    model: conn.model,
    max_tokens: req.maxTokens ?? 1_024,
    system: req.system,
    messages,
    ...anthropicTools(req),
  });
  // Anthropic counts cache reads apart from input_tokens: the input total includes them here.
  const cacheRead = res.usage.cache_read_input_tokens ?? 0;
  usage.input_tokens += res.usage.input_tokens + cacheRead;
  usage.cached_input_tokens += cacheRead;
  usage.output_tokens += res.usage.output_tokens;
  const text = res.content
    .filter((b): b is Anthropic.TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const toolCalls = res.content
    .filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    .map((b) => ({
      id: b.id,
      name: b.name,
      arguments: (b.input ?? {}) as Record<string, unknown>,
    }));
  return { text, toolCalls, model: conn.model };
}

/**
 * Why a call failed. The SDKs report any failure of their fetch as "Connection error." and keep
 * what happened (refused, reset, an answer over the cap) as its cause: the message says both.
 */
const reason = (err: unknown): string => {
  const { message, cause } = err as Error;
  return cause instanceof Error && cause.message && !message.includes(cause.message)
    ? `${message} (${cause.message})`
    : message;
};

/**
 * A model client for one connection. The SDKs' own retries are off: we retry 429 and 5xx answers
 * and network failures with backoff ourselves, so that every attempt is counted in `usage`.
 */
export function createModelClient(
  conn: ModelConnection,
  policy: ModelPolicy = DEFAULT_MODEL_POLICY,
): ModelClient {
  const options = {
    apiKey: conn.apiKey,
    baseURL: conn.baseUrl,
    maxRetries: 0,
    timeout: policy.timeoutMs,
    fetch: guardedFetch(policy.maxResponseBytes),
  };
  const once =
    conn.kind === 'anthropic'
      ? (
          (c) => (req: CompletionRequest, usage: Usage) =>
            anthropicOnce(c, conn, req, usage)
        )(new Anthropic(options))
      : (
          (c) => (req: CompletionRequest, usage: Usage) =>
            openaiOnce(c, conn, req, usage)
        )(new OpenAI(options));

  return async function complete(req: CompletionRequest, usage: Usage): Promise<Completion> {
    for (let attempt = 1; ; attempt++) {
      usage.llm_calls++;
      try {
        return await once(req, usage);
      } catch (err) {
        const status = (err as { status?: number }).status ?? null;
        // An oversized answer, or an address the server may not reach, would only fail again.
        const retryable =
          !isTooLarge(err) &&
          !blockedBy(err) &&
          (status === null || status === 429 || status >= 500);
        if (!retryable || attempt >= policy.attempts) {
          throw new ModelError(
            `The ${conn.kind} model ${conn.model} failed${status ? ` (${status})` : ''}: ${reason(err)}`,
            status,
          );
        }
        await sleep(policy.baseDelayMs * 2 ** (attempt - 1) + Math.random() * policy.baseDelayMs);
      }
    }
  };
}
