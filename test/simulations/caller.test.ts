import { describe, expect, it } from 'vitest';
import {
  callerInstructions,
  END_MARKER,
  fill,
  resolveVariables,
  stripEnd,
} from '../../src/conversation/caller.js';

const persona = {
  name: 'Frank',
  language: 'es',
  emotion: 'frustrated',
  difficulty: 'hard',
  prompt: 'A small-business owner who hates waiting.',
};

describe('the simulated caller', () => {
  it('fills variables from the execution, else their defaults; refuses an undeclared one', () => {
    const declared = [
      { name: 'order_id', type: 'string', defaultValue: 'A-1' },
      { name: 'days', type: 'number', defaultValue: '3' },
    ];
    const values = resolveVariables(declared, { order_id: 'B-7' });
    expect(values).toEqual({ order_id: 'B-7', days: '3' });
    expect(fill('Order {{order_id}} is {{ days }} days late; {{unknown}} stays.', values)).toBe(
      'Order B-7 is 3 days late; {{unknown}} stays.',
    );
    expect(() => resolveVariables(declared, { orderId: 'x' })).toThrow(
      /variables.orderId: is not a variable of this scenario \(it has: order_id, days\)/,
    );
  });

  it('composes instructions from persona and scenario: in character, never revealing the simulation, ending with the marker', () => {
    const text = callerInstructions(persona, 'Order B-7 is late.');
    expect(text).toContain('You are Frank');
    expect(text).toContain('in Spanish');
    expect(text).toContain('Your situation: Order B-7 is late.');
    expect(text).toContain('A small-business owner who hates waiting.');
    expect(text).toContain('You feel frustrated');
    expect(text).toMatch(/Never say or hint that you are an AI, a test or a simulation/);
    expect(text).toContain(END_MARKER);
  });

  it('difficulty changes patience, clarity and how much the caller volunteers', () => {
    const by = (difficulty: string) => callerInstructions({ ...persona, difficulty }, 'x');
    expect(by('easy')).toMatch(
      /patient and cooperative.*give any detail the agent asks for at once/s,
    );
    expect(by('medium')).toMatch(/only give details .* when the agent asks/);
    expect(by('hard')).toMatch(/impatient.*volunteer nothing.*give up/s);
    expect(by('very_hard')).toMatch(/very impatient.*mis-remember one detail.*supervisor/s);
    expect(new Set(['easy', 'medium', 'hard', 'very_hard'].map(by)).size).toBe(4);
  });

  it('strips the end marker and says the caller ended the call', () => {
    expect(stripEnd(`Thanks, bye! ${END_MARKER}`)).toEqual({ text: 'Thanks, bye!', ended: true });
    expect(stripEnd('Hello?')).toEqual({ text: 'Hello?', ended: false });
  });
});
