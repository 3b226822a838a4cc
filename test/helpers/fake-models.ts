import { handled } from './handled.js';
import type { JsonObject } from './json.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = JsonObject;

/**
 * A fake model server speaking the OpenAI chat completions and the Anthropic messages APIs.
 * It answers from a script: each entry is a status and body, used once, in order.
 */
export async function startFakeModels() {
  const script: { status: number; body: Json; delayMs?: number }[] = [];
  const requests: { path: string; headers: Json; body: Json }[] = [];
  /** When each request arrived and was answered, on the fake's clock (performance.now()). */
  const spans: { startMs: number; endMs: number }[] = [];
  const server = createServer(
    handled(async (req, res) => {
      const startMs = performance.now();
      let raw = '';
      for await (const c of req) raw += c;
      requests.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw || '{}') });
      const next = script.shift() ?? {
        status: 500,
        body: { error: { message: 'script ran out' } },
      };
      if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(next.body));
      spans.push({ startMs, endMs: performance.now() });
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    spans,
    /** Queues OpenAI-shaped answers. */
    openai(
      content: string | null,
      toolCalls: { id: string; name: string; arguments: string }[] = [],
      usage: {
        prompt_tokens: number;
        completion_tokens: number;
        prompt_tokens_details?: { cached_tokens: number };
      } = { prompt_tokens: 10, completion_tokens: 5 },
    ) {
      script.push({
        status: 200,
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [
            {
              index: 0,
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
              message: {
                role: 'assistant',
                content,
                tool_calls: toolCalls.length
                  ? toolCalls.map((t) => ({
                      id: t.id,
                      type: 'function',
                      function: { name: t.name, arguments: t.arguments },
                    }))
                  : undefined,
              },
            },
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        },
      });
    },
    anthropic(
      blocks: Json[],
      usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number } = {
        input_tokens: 12,
        output_tokens: 7,
      },
    ) {
      script.push({
        status: 200,
        body: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: blocks,
          stop_reason: 'end_turn',
          usage,
        },
      });
    },
    /** Queues an Anthropic answer that calls a tool (a forced tool's structured answer). */
    anthropicTool(name: string, input: Json) {
      this.anthropic([{ type: 'tool_use', id: `toolu_${script.length}`, name, input }]);
      script.at(-1)!.body.stop_reason = 'tool_use';
    },
    /** The next queued answer comes after a wait. */
    slow(delayMs: number) {
      script.at(-1)!.delayMs = delayMs;
    },
    fail(status: number, times = 1) {
      for (let i = 0; i < times; i++)
        script.push({ status, body: { error: { type: 'error', message: `status ${status}` } } });
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
