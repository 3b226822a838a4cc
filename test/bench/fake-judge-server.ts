import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible judge that answers at once, in a process of its own so that its work is not
 * counted against the engine: a score of 90 with the agent's line that gave the tracking number as
 * evidence (the quote the judge's check finds in its turn). Prints its URL.
 */
const verdict = (question: string) => {
  const line = [...question.matchAll(/^(\d+)\. Agent: (.*tracking.*)$/gim)].at(-1);
  const evidence = line ? [{ turn: Number(line[1]), quote: line[2]!.slice(0, 40) }] : [];
  return JSON.stringify({
    id: 'chatcmpl-j',
    object: 'chat.completion',
    created: 1,
    model: 'bench',
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        message: {
          role: 'assistant',
          content: JSON.stringify({ score: 90, reasoning: 'The agent helped.', evidence }),
        },
      },
    ],
    usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
  });
};

let answered = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.end(JSON.stringify({ answered }));
    return;
  }
  answered++;
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const body = JSON.parse(raw || '{}') as { messages?: { role: string; content?: string }[] };
    const question = String(body.messages?.find((m) => m.role === 'user')?.content ?? '');
    const answer = verdict(question);
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
