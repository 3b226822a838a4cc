import { describe, expect, it } from 'vitest';
import { callConversation } from '../../src/simulations/call-conversation.js';
import { turnText } from '../../src/simulations/judge-transcript.js';
import type { StoredCall } from '../../src/store/calls.js';
import { callTurns, quoteSpan } from '../../renderer/src/ui/callTurns.js';

/**
 * The Production tab numbers a call's turns in the renderer (it cannot import the engine): its
 * numbers and text must be the judge's, or a piece of evidence would point at the wrong turn.
 */

type Line = StoredCall['transcript'][number];
type Tool = StoredCall['toolCalls'][number];

const line = (role: 'user' | 'agent', text: string, startMs: number | null, endMs = startMs) =>
  ({ role, text, startMs, endMs: endMs === null ? null : endMs + 500 }) satisfies Line;
const tool = (name: string, atMs: number | null) =>
  ({
    name,
    arguments: { orderId: 'A1' },
    result: { status: 'shipped' },
    success: true,
    latencyMs: 120,
    atMs,
  }) satisfies Tool;

const call = (transcript: Line[], toolCalls: Tool[]): StoredCall => ({
  id: 'call_1',
  agentId: 'agt_1',
  providerCallId: 'vc_1',
  startedAt: '2026-06-01T10:00:00.000Z',
  endedAt: '2026-06-01T10:01:35.000Z',
  durationMs: 95_000,
  endReason: 'customer-ended-call',
  cost: null,
  costOriginal: null,
  recordingUrl: null,
  summary: null,
  successful: true,
  transcript,
  toolCalls,
  agentVersion: null,
});

const cases: Record<string, StoredCall> = {
  'timed, a tool between turns': call(
    [
      line('agent', 'Hi, how can I help?', 100),
      line('user', 'Where is order A1?', 2000),
      line('agent', 'It has shipped.', 4000),
    ],
    [tool('order_status', 3600)],
  ),
  'a tool at the same moment as a turn, tools out of order': call(
    [line('user', 'Hello', 0), line('agent', 'Checking', 1000), line('agent', 'Done', 3000)],
    [tool('second', 3000), tool('first', 1000)],
  ),
  'untimed turns, a tool up to the speech reached, untimed tools last': call(
    [
      line('agent', 'Hi', 0, 1000),
      line('user', 'Where\nis it?', null),
      line('agent', 'There', null),
    ],
    [tool('late', null), tool('early', 1200), tool('on_time', 900)],
  ),
  'no transcript, tools only': call([], [tool('a', null), tool('b', 50)]),
};

describe("a call's turns in the renderer, numbered as the judge numbers them", () => {
  for (const [name, c] of Object.entries(cases))
    it(name, () => {
      const engine = callConversation(c).turns;
      const shown = callTurns(c);
      expect(shown.map((t) => t.index)).toEqual(engine.map((_t, i) => i));
      expect(shown.map((t) => t.text)).toEqual(engine.map(turnText));
      expect(shown.map((t) => t.role)).toEqual(engine.map((t) => t.role));
      expect(shown.map((t) => t.atMs)).toEqual(engine.map((t) => t.at_ms));
    });
});

describe('where a quote sits in a turn', () => {
  it('ignores case, spacing and punctuation, and spans the original characters', () => {
    const text = "Agent: Your order shipped yesterday -- it'll arrive Friday.";
    const span = quoteSpan(text, 'your ORDER shipped yesterday it ll  arrive friday');
    expect(span).not.toBeNull();
    expect(text.slice(span!.start, span!.end)).toBe(
      "Your order shipped yesterday -- it'll arrive Friday",
    );
  });

  it('finds a quote in a tool turn, and none that is not there', () => {
    const text = '[tool lookup_order {"orderId":"A1"} -> {"status":"shipped"}]';
    const span = quoteSpan(text, 'lookup_order');
    expect(text.slice(span!.start, span!.end)).toBe('lookup_order');
    expect(quoteSpan(text, 'delivered')).toBeNull();
    expect(quoteSpan(text, ' ... ')).toBeNull();
  });

  it('keeps characters outside the basic plane whole', () => {
    const text = 'Agent: Thanks 👍 see you';
    const span = quoteSpan(text, '👍 SEE');
    expect(text.slice(span!.start, span!.end)).toBe('👍 see');
  });
});
