import { createServer } from 'node:http';

/**
 * A fake Vapi that serves N calls generated on demand (20 turns and 2 tool calls each), so that
 * the provider side holds no history in memory. Run as a child process: prints its URL.
 */
const N = Number(process.argv[2]);
const T0 = Date.parse('2026-06-01T00:00:00Z');
const createdAt = (i: number) => T0 + i * 1000;

function call(i: number) {
  const start = createdAt(i) + 100;
  const messages: unknown[] = [];
  for (let t = 0; t < 20; t++) {
    messages.push({
      role: t % 2 ? 'user' : 'bot',
      message: `Turn ${t} of call ${i}: some words said on the line about the order.`,
      time: start + t * 3000,
      endTime: start + t * 3000 + 2000,
      secondsFromStart: t * 3,
      duration: 2000,
    });
    if (t === 5 || t === 13) {
      messages.push({
        role: 'tool_calls',
        time: start + t * 3000 + 2100,
        toolCalls: [
          {
            id: `tc${i}_${t}`,
            function: { name: t === 5 ? 'order_status' : 'refund', arguments: '{"orderId":"A1"}' },
          },
        ],
      });
      messages.push({
        role: 'tool_call_result',
        time: start + t * 3000 + 2400,
        toolCallId: `tc${i}_${t}`,
        result: '{"ok":true}',
      });
    }
  }
  return {
    id: `c${i}`,
    assistantId: 'a1',
    createdAt: new Date(createdAt(i)).toISOString(),
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + 61_000).toISOString(),
    endedReason: 'customer-ended-call',
    cost: 0.2,
    analysis: { summary: 'An order question', successEvaluation: 'true' },
    artifact: { recordingUrl: `https://r/${i}` },
    messages,
  };
}

const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://x');
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/assistant/a1')
    return res.end(
      JSON.stringify({
        id: 'a1',
        name: 'Bench',
        model: { provider: 'openai', model: 'gpt-4o', messages: [] },
        voice: {},
      }),
    );
  if (url.pathname === '/phone-number') return res.end('[]');
  if (url.pathname === '/call') {
    const gt = Date.parse(url.searchParams.get('createdAtGt')!);
    const lt = url.searchParams.get('createdAtLt')
      ? Date.parse(url.searchParams.get('createdAtLt')!)
      : Infinity;
    const limit = Number(url.searchParams.get('limit'));
    const hi = Math.min(N - 1, lt === Infinity ? N - 1 : Math.ceil((lt - T0) / 1000) - 1);
    const lo = Math.max(0, Math.floor((gt - T0) / 1000) + 1, hi - limit + 1);
    const page = [];
    for (let i = hi; i >= lo; i--) page.push(call(i));
    return res.end(JSON.stringify(page));
  }
  res.statusCode = 404;
  res.end('{}');
});
server.listen(0, '127.0.0.1', () =>
  console.log(`http://127.0.0.1:${(server.address() as { port: number }).port}`),
);
export { call };
