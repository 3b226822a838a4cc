import type { Prices } from '../domain/prices.js';
import { SpendRefused } from '../llm/spend-refused.js';
import type { CompletionRequest } from '../llm/types.js';
import type { Reservation } from '../store/cost-budget.js';
import type { Store } from '../store/index.js';
import { callCost, pricesOf, tokenCost, type Cost } from './pricing.js';

/**
 * The hard part of an execution's cost cap, inside one running simulation. Its start reserves an
 * estimate (store/cost-budget.ts); a simulation can cost more than that, so before every spend it
 * makes (a model call of any role, speech synthesised or transcribed) the guard checks that what it
 * has spent so far, plus what is in flight, plus the worst this spend can cost, fits in what it
 * holds, and raises its reservation first when it does not (the same conditional UPDATE, so
 * atomic across servers). A raise refused stops the simulation there: the spend is never made,
 * so what the execution spends never passes its cap.
 */

/**
 * The answer length asked of a model call that names none, when its run is capped: without one a
 * call's worst case is the model's whole output window. Replies and verdicts are far shorter.
 */
export const CAPPED_MAX_OUTPUT_TOKENS = 1_024;

/** Tokens a chat format adds per message (role markers, separators), generously. */
const TOKENS_PER_MESSAGE = 8;

/**
 * Held above the sum of the parts: a simulation's cost is stored rounded to the micro-dollar
 * (domain/prices.ts roundUsd), which may round it up by half of one.
 */
const ROUNDING_USD = 1e-6;

/** A capped run's model request: its answer's length bounded, so its worst cost is known. */
export const boundedRequest = (request: CompletionRequest): CompletionRequest =>
  request.maxTokens === undefined ? { ...request, maxTokens: CAPPED_MAX_OUTPUT_TOKENS } : request;

/**
 * The most input tokens a request can be counted: every token is at least one byte of what is
 * sent, so the bytes of the prompt, history and tool definitions (as JSON, which only adds) bound
 * them whatever the model's tokenizer, plus the chat format's own tokens.
 */
export function inputTokenBound(request: CompletionRequest): number {
  const bytes =
    Buffer.byteLength(request.system ?? '') +
    Buffer.byteLength(JSON.stringify(request.messages)) +
    Buffer.byteLength(JSON.stringify(request.tools ?? []));
  const parts = request.messages.length + (request.tools?.length ?? 0) + 1;
  return bytes + TOKENS_PER_MESSAGE * parts;
}

/** The most a model call can cost: all its input uncached, and its whole answer length. */
export function worstCallCost(model: string, request: CompletionRequest, prices: Prices): Cost {
  return tokenCost(
    {
      model,
      llm_calls: 1,
      input_tokens: inputTokenBound(request),
      cached_input_tokens: 0,
      output_tokens: request.maxTokens ?? CAPPED_MAX_OUTPUT_TOKENS,
    },
    prices,
  );
}

export interface SpendGuard {
  /**
   * Holds budget for a spend about to be made (`worst`: the most it can cost at the prices);
   * throws SpendRefused when the cap has none left. The answer is called once the spend is
   * counted in the simulation's usage (or it failed).
   */
  hold(what: string, worst: (prices: Prices) => Cost): Promise<() => void>;
  /** Why the simulation was stopped, or null while it was not. */
  refusal(): string | null;
}

interface GuardOptions {
  /** Raises the simulation's reservation to at least this much (store budgets.raise). */
  raise: (toUsd: number) => Promise<Reservation>;
  prices: Prices;
  /** What the simulation has spent so far at `prices` (null: something in it has no price). */
  spentUsd: (prices: Prices) => number | null;
  /** Spent by the end but counted only then: an audio call's charge for its whole length. */
  pendingUsd: number | null;
}

const refusalOf = (what: string) =>
  `its execution's cost cap (maxCostUsd) had no budget left for its next spend (${what}); it stopped there`;

export function createSpendGuard(options: GuardOptions): SpendGuard {
  const { prices } = options;
  /** A lower bound of what the simulation holds: above it, the store is asked. */
  let reserved = 0;
  let inFlight = 0;
  let refused: string | null = null;
  // One check at a time: two calls in flight each count the other's worst case.
  let queue: Promise<unknown> = Promise.resolve();

  async function check(what: string, worst: (prices: Prices) => Cost): Promise<() => void> {
    if (refused) throw new SpendRefused(refused);
    const most = worst(prices).cost_usd;
    const spent = options.spentUsd(prices);
    if (most === null || spent === null || options.pendingUsd === null) {
      refused = `${refusalOf(what)}: something in play has no price any more`;
      throw new SpendRefused(refused);
    }
    const need = spent + options.pendingUsd + inFlight + most + ROUNDING_USD;
    if (need > reserved) {
      if ((await options.raise(need)) === 'refused') {
        refused = refusalOf(what);
        throw new SpendRefused(refused);
      }
      reserved = need;
    }
    inFlight += most;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= most;
    };
  }

  return {
    hold(what, worst) {
      const held = queue.then(() => check(what, worst));
      queue = held.catch(() => {});
      return held;
    },
    refusal: () => refused,
  };
}

/**
 * A call runs on a little past `maxDurationMs` while it hangs up (it ends at the first frame past
 * the limit, and its recording holds 10 s more: voice/audio-conversation.ts): held too.
 */
export const CALL_OVERRUN_MS = 10_000;

/** An audio call's charge for its whole `maxDurationMs` and the hang-up after (text runs: none). */
export function pendingCallUsd(
  prices: Prices,
  call: { mode: string; provider: string; maxDurationMs: number },
): number | null {
  if (call.mode !== 'audio') return 0;
  return callCost(call.provider, (call.maxDurationMs + CALL_OVERRUN_MS) / 1000, prices).cost_usd;
}

/**
 * Guards a capped simulation's spending from here on (its start reserved its share): at the
 * prices in force now, with an audio call's whole length held from the start.
 */
export async function guardSpending(
  store: Store,
  spending: {
    spentUsd: (prices: Prices) => number | null;
    guardWith: (guard: SpendGuard, prices: Prices) => void;
  },
  run: {
    sim: { id: string; mode: string };
    agent: { provider: string };
    setup: { limits: { maxDurationMs: number } };
  },
): Promise<void> {
  const prices = await pricesOf(store);
  const call = {
    mode: run.sim.mode,
    provider: run.agent.provider,
    maxDurationMs: run.setup.limits.maxDurationMs,
  };
  spending.guardWith(
    createSpendGuard({
      raise: (toUsd) => store.simulations.budgets.raise(run.sim.id, toUsd),
      prices,
      spentUsd: spending.spentUsd,
      pendingUsd: pendingCallUsd(prices, call),
    }),
    prices,
  );
}
