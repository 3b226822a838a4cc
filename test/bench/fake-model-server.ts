import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat completions server that answers at once, in a process of its own so
 * that its work is not counted against the engine. Prints its URL.
 */
const answer = JSON.stringify({
  id: 'chatcmpl-b',
  object: 'chat.completion',
  created: 1,
  model: 'bench',
  choices: [
    {
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Sure, I can help with that. Anything else?' },
    },
  ],
  usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer),
    });
    res.end(answer);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () =>
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
