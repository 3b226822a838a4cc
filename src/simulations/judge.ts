import type { ModelClient } from '../llm/types.js';
import type { Usage } from '../llm/types.js';
import type { Conversation, Judge } from './scoring.js';

const transcript = (c: Conversation) =>
  c.turns
    .map((t) =>
      t.role === 'tool'
        ? `[tool ${t.tool?.name}(${JSON.stringify(t.tool?.arguments)}) -> ${JSON.stringify(t.tool?.result)}]`
        : `${t.role === 'caller' ? 'Caller' : 'Agent'}: ${t.text}`,
    )
    .join('\n');

/** Reads {"score": 0..100, "reasoning": "..."} out of a judge's answer, or null. */
export function parseVerdict(text: string): { score: number; reasoning: string } | null {
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return null;
  try {
    const v = JSON.parse(match[0]) as { score?: unknown; reasoning?: unknown };
    if (
      typeof v.score !== 'number' ||
      v.score < 0 ||
      v.score > 100 ||
      typeof v.reasoning !== 'string'
    )
      return null;
    return { score: v.score, reasoning: v.reasoning };
  } catch {
    return null;
  }
}

/** A judge on the judge model: structured answer, validated; a malformed one is asked once more. */
export function modelJudge(model: ModelClient, usage: Usage): Judge {
  return async (criterion, conversation) => {
    const ask = () =>
      model(
        {
          system:
            'You grade phone conversations between a caller and a voice agent. Answer with JSON only: {"score": <0 to 100>, "reasoning": "<one or two sentences>"}.',
          messages: [
            {
              role: 'user',
              content: `Criterion: ${criterion}\n\nConversation:\n${transcript(conversation)}`,
            },
          ],
          temperature: 0,
        },
        usage,
      );
    for (let attempt = 0; attempt < 2; attempt++) {
      const verdict = parseVerdict((await ask()).text);
      if (verdict) return verdict;
    }
    throw new Error('the judge model answered without a valid {score, reasoning} twice');
  };
}
