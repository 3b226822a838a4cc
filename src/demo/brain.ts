/**
 * What the demo agent says: a small order-support script, the same in text and audio. It follows
 * the caller by turns rather than by understanding words (an audio call gives it no text of the
 * caller's, and it needs no speech-to-text): first it asks for the order number, then it looks
 * the order up with its `order_status` tool, then it says goodbye and hangs up. The number comes
 * from the caller's words in text, and from keypad digits (or words' digits) in audio.
 */
import type { DemoKnobs } from '../domain/demo.js';

export const DEMO_GREETING = 'Thanks for calling Acme order support. How can I help you today?';
const ASK_NUMBER = 'Sure, I can check that for you. What is your order number?';
const ASK_AGAIN = 'Sorry, I did not get the number. Please say or key in your order number.';
const GOODBYE = 'Thanks for calling Acme. Goodbye!';

/** The lines the demo always says the same way: voiced (and cached) before its first call. */
export const DEMO_FIXED_LINES = [DEMO_GREETING, ASK_NUMBER, ASK_AGAIN, GOODBYE] as const;

export interface OrderLookup {
  (orderId: string): Promise<{ result: unknown; success: boolean; latencyMs: number }>;
}

/** One reply: its words (empty when the agent stays silent), its tool call, whether it hangs up. */
export interface DemoReply {
  text: string;
  toolCall: {
    name: string;
    arguments: { order_id: string };
    result: unknown;
    success: boolean;
    latencyMs: number;
  } | null;
  ended: boolean;
}

type Step = 'ask_number' | 'number' | 'anything_else' | 'done';

/** Digits of an order number in what the caller said or keyed: three or more in a row. */
export function orderNumberIn(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '').match(/\d{3,}/);
  return digits ? digits[0] : null;
}

function describeOrder(orderId: string, result: unknown, success: boolean): string {
  const order = result as { status?: unknown; arrives?: unknown } | null;
  if (!success || !order || typeof order.status !== 'string')
    return `I could not find order ${orderId}. Is there anything else I can help with?`;
  const arrives = typeof order.arrives === 'string' ? ` and should arrive on ${order.arrives}` : '';
  return `Order ${orderId} has ${order.status}${arrives}. Is there anything else I can help with?`;
}

/** What the script does with a caller line, before any tool is called. */
type Plan =
  | { kind: 'say'; text: string; ended: boolean }
  | { kind: 'look_up'; orderId: string }
  | { kind: 'silent' };

/**
 * One conversation's script state: `reply` is called once per caller line, in order. A stateless
 * text endpoint rebuilds it from the history with `replay` (no tool called again for old lines).
 */
export class DemoBrain {
  private step: Step = 'ask_number';
  private callerLines = 0;
  private replies = 0;

  constructor(
    private readonly knobs: DemoKnobs,
    private readonly lookup: OrderLookup,
  ) {}

  /** Moves the script past a caller line already answered. */
  replay(heard: string): void {
    this.plan(heard);
  }

  /** The reply to the caller's next line: `heard` is its words (text) or keyed digits (audio). */
  async reply(heard: string): Promise<DemoReply> {
    const plan = this.plan(heard);
    if (plan.kind === 'silent') return { text: '', toolCall: null, ended: false };
    if (plan.kind === 'say') return { text: plan.text, toolCall: null, ended: plan.ended };
    const { result, success, latencyMs } = await this.lookup(plan.orderId);
    return {
      text: describeOrder(plan.orderId, result, success),
      toolCall: {
        name: 'order_status',
        arguments: { order_id: plan.orderId },
        result,
        success,
        latencyMs,
      },
      ended: this.hangsUpNow(),
    };
  }

  private hangsUpNow(): boolean {
    const after = this.knobs.hangUpAfter;
    return Boolean(after && this.replies >= after);
  }

  private plan(heard: string): Plan {
    this.callerLines += 1;
    if (this.knobs.silentTurn === this.callerLines) return { kind: 'silent' };
    const plan = this.scripted(heard);
    this.replies += 1;
    if (plan.kind === 'say' && this.hangsUpNow()) plan.ended = true;
    return plan;
  }

  private scripted(heard: string): Plan {
    switch (this.step) {
      case 'ask_number':
        this.step = 'number';
        return { kind: 'say', text: ASK_NUMBER, ended: false };
      case 'number': {
        const orderId = orderNumberIn(heard);
        if (!orderId) return { kind: 'say', text: ASK_AGAIN, ended: false };
        this.step = 'anything_else';
        return { kind: 'look_up', orderId };
      }
      default:
        this.step = 'done';
        return { kind: 'say', text: GOODBYE, ended: true };
    }
  }
}
