import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake replica model (OpenAI chat completions on 127.0.0.1) whose reply depends on the agent's
 * system prompt: a prompt holding `marker` confirms the shipping (a `contains: "shipped"` metric
 * passes), any other does not. It records, in arrival order, which of the two each call was, so a
 * test sees how the sides' simulations took turns.
 */
export async function startFakeReplica(marker: string) {
  const calls: { marked: boolean; system: string }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { messages?: { role: string; content: unknown }[] };
      const system = (body.messages ?? [])
        .filter((m) => m.role === 'system')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
      const marked = system.includes(marker);
      calls.push({ marked, system });
      const content = marked ? 'Your order has shipped.' : 'I cannot find that order.';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion',
          created: 1,
          model: 'fake',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
