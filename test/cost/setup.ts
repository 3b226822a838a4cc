import { expect } from 'vitest';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { replicaAgent, supportSamSnapshot } from '../helpers/support-sam.js';
import type { Json } from '../helpers/json.js';
import type { TestServer } from '../helpers/server.js';

/*
 * What the cost tests share: an agent on the replica channel, a model-played caller and a judged
 * outcome, so that every role spends tokens on the fake model (test/helpers/fake-brain.ts: 20
 * prompt and 8 completion tokens a call, the same conversation every time).
 */

export const MODEL = 'fake';

const snapshot = (): AgentSnapshot => supportSamSnapshot();

/** The agent, its tool (at `targetUrl`), a persona and a judged scenario with a model caller. */
export async function costSetup(s: TestServer, targetUrl: string) {
  const now = new Date().toISOString();
  await s.engine.store.agents.insert(
    replicaAgent({ id: 'agt_sam', providerAgentId: 'a1', snapshot: snapshot(), at: now }),
  );
  const tool = await s.call('POST', '/v1/tools', {
    name: 'order_status',
    description: 'Looks up an order',
    type: 'api',
    config: { url: `${targetUrl}/orders/{orderId}` },
    parameters: [{ name: 'orderId', type: 'string', required: true }],
    responseMapping: { status: 'order.status', tracking: 'order.tracking' },
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(201);
  const persona = (await s.ws('POST', '/personas', { name: 'Frank', prompt: 'A busy shop owner.' }))
    .body.data.persona.id as string;
  const made = await s.ws('POST', '/scenarios', {
    name: 'Late order',
    prompt: 'Your order C3 is late and you want to know where it is.',
    personas: [persona],
    targetAgents: ['agt_sam'],
    expectedOutcome: 'The caller learns where the order is',
    maxTurns: 6,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { scenario: made.body.data.scenario.id as string, persona };
}

/** Dollars per million tokens of the fake model. */
export const PRICE = { inputPerMTok: 1, cachedInputPerMTok: 0.5, outputPerMTok: 2 };

export async function priceTheModel(s: TestServer): Promise<void> {
  const set = await s.call('PATCH', '/v1/settings', {
    prices: { llm: [{ model: MODEL, ...PRICE }] },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
}

/** What tokens cost at PRICE, as the issue defines it: cached input at its own price. */
export function expectedCost(u: {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
}): number {
  return (
    ((u.input_tokens - u.cached_input_tokens) * PRICE.inputPerMTok +
      u.cached_input_tokens * PRICE.cachedInputPerMTok +
      u.output_tokens * PRICE.outputPerMTok) /
    1_000_000
  );
}

/** Executes, waits for the end, and answers the execution and its simulations. */
export async function executeAndWait(s: TestServer, scenario: string, body: Json) {
  const res = await s.ws('POST', `/scenarios/${scenario}/execute`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = res.body.data.execution.id as string;
  let execution: Json = {};
  // Waits in rounds: a busy machine may take longer than one wait.
  for (let i = 0; i < 20; i++) {
    execution = (await s.ws('GET', `/executions/${id}?wait=30`)).body.data.execution;
    if (!['queued', 'running'].includes(execution.status as string)) break;
  }
  const sims = (await s.ws('GET', `/executions/${id}/simulations`)).body.data.simulations as Json[];
  return { execution, sims };
}

export const detailPaths = (body: Json): string[] =>
  ((body.error as { details?: { path: string }[] }).details ?? []).map((d) => d.path);
