import { handled } from './handled.js';
import type { JsonObject } from './json.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = JsonObject;

const answer = (content: string | null, toolCalls: { name: string; arguments: Json }[] = []) => ({
  id: 'chatcmpl-x',
  object: 'chat.completion',
  created: 1,
  model: 'fake',
  choices: [
    {
      index: 0,
      finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      message: {
        role: 'assistant',
        content,
        tool_calls: toolCalls.length
          ? toolCalls.map((t, i) => ({
              id: `call_${Date.now()}_${i}`,
              type: 'function',
              function: { name: t.name, arguments: JSON.stringify(t.arguments) },
            }))
          : undefined,
      },
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
});

/**
 * The judge's structured answer (the shape its request's JSON schema asks): 90, or every
 * requirement met, with the agent's line that gave the tracking number as evidence.
 */
function judgeVerdict(body: { messages: Json[]; response_format?: Json }): Json {
  const question = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
  const evidence = [...question.matchAll(/^(\d+)\. Agent: (.*tracking.*)$/gim)]
    .slice(-1)
    .map((m) => ({ turn: Number(m[1]), quote: m[2]!.slice(0, 40) }));
  const schema = (body.response_format?.json_schema as Json | undefined)?.schema as
    Json | undefined;
  const asked = (schema?.properties as Json | undefined)?.requirements
    ? [...question.matchAll(/^(\d+)\. (?!Caller:|Agent:|\[tool)/gm)].length
    : 0;
  const judged = asked
    ? {
        requirements: Array.from({ length: asked }, (_, i) => ({ requirement: i + 1, met: true })),
      }
    : { score: 90 };
  return { ...judged, reasoning: 'The agent gave the tracking number.', evidence };
}

/**
 * An OpenAI-compatible model that plays every role from what it is asked, so that concurrent
 * conversations stay deterministic: the replica agent (looks orders up with its tool), the
 * caller (asks about an order, thanks, hangs up) and the judge (scores 90).
 */
export async function startFakeBrain(
  options: {
    delayMs?: number;
    /** Of each call's 20 prompt tokens, how many it answers as cached (OpenAI's prompt_tokens_details). */
    cachedTokens?: number;
    /**
     * Each call's token counts instead of 20 and 8 (to make simulations' costs vary): told the
     * request's size in bytes and its max_tokens (null when it sent none).
     */
    usage?: (call: { requestBytes: number; maxTokens: number | null }) => {
      prompt_tokens: number;
      completion_tokens: number;
    };
  } = {},
) {
  const calls = { replica: 0, caller: 0, judge: 0 };
  const server = createServer(
    handled(async (req, res) => {
      let raw = '';
      for await (const c of req) raw += c;
      const body = JSON.parse(raw) as {
        messages: Json[];
        tools?: Json[];
        max_tokens?: unknown;
        response_format?: Json;
      };
      const system = String(body.messages.find((m) => m.role === 'system')?.content ?? '');
      const last = body.messages[body.messages.length - 1]!;
      let out;
      if (system.includes('You grade')) {
        calls.judge++;
        out = answer(JSON.stringify(judgeVerdict(body)));
      } else if (system.includes('a customer phoning')) {
        calls.caller++;
        const agentSaid = String(last.content ?? '');
        out = agentSaid.includes('TRK')
          ? answer('Great, thank you. Bye! [END_CALL]')
          : answer('Hi, where is my order C3?');
      } else {
        calls.replica++;
        const text = String(last.content ?? '');
        const order = /order ([A-Z]\d+)/i.exec(text)?.[1];
        if (last.role === 'tool')
          out = answer(
            `Your order has shipped. Tracking ${JSON.parse(last.content).tracking ?? 'unknown'}.`,
          );
        else if (/bye|thank/i.test(text)) out = answer('Goodbye! [END_CALL]');
        else if (order && body.tools?.length)
          out = answer(null, [{ name: 'order_status', arguments: { orderId: order } }]);
        else out = answer('How can I help you today?');
      }
      if (options.usage) {
        const sized = options.usage({
          requestBytes: Buffer.byteLength(raw),
          maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : null,
        });
        Object.assign(out.usage, sized, {
          total_tokens: sized.prompt_tokens + sized.completion_tokens,
        });
      }
      if (options.cachedTokens !== undefined)
        Object.assign(out.usage, {
          prompt_tokens_details: { cached_tokens: options.cachedTokens },
        });
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
