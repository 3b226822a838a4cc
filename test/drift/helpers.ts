import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../../src/engine.js';
import { handled } from '../helpers/handled.js';
import type { JsonObject } from '../helpers/json.js';

/** The word in an agent's prompt that makes its replica answer badly (a regressed version). */
export const RUDE = 'Be rude.';

const answer = (content: string) => ({
  id: 'chatcmpl-drift',
  object: 'chat.completion',
  created: 1,
  model: 'fake',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
});

/**
 * An OpenAI-compatible model for the replica role that answers from the agent's prompt (the
 * system message): a prompt saying `RUDE` gets a useless answer, any other a helpful one. So a
 * configuration change synced from the provider is what makes a version pass or fail, whatever
 * order concurrent simulations ask in. `prompts` records each system prompt it was sent.
 */
export async function startPromptModel() {
  const prompts: string[] = [];
  const server = createServer(
    handled(async (req, res) => {
      let raw = '';
      for await (const c of req) raw += c;
      const body = JSON.parse(raw) as { messages: JsonObject[] };
      const system = String(body.messages.find((m) => m.role === 'system')?.content ?? '');
      prompts.push(system);
      const out = system.includes(RUDE)
        ? answer('No. [END_CALL]')
        : answer('Your order has shipped, it arrives tomorrow. Goodbye! [END_CALL]');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    prompts,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** An operation's data, or a thrown error naming what it answered. */
export async function data<T>(engine: Engine, operation: string, input: object): Promise<T> {
  const res = await engine.invoke(operation, input);
  if (res.status >= 300) throw new Error(`${operation}: ${JSON.stringify(res)}`);
  return res.data as T;
}

export interface SuiteFixture {
  workspaceId: string;
  scenarioIds: string[];
  scenarioNames: string[];
}

/**
 * Two scripted scenarios (one question each, scored on whether the agent says "shipped") in the
 * first workspace, with one persona; `targets` are the scenarios' target agents.
 */
export async function seedSuiteScenarios(engine: Engine, targets: string[]): Promise<SuiteFixture> {
  const { workspaces } = await data<{ workspaces: { id: string }[] }>(
    engine,
    'workspaces.list',
    {},
  );
  const ws = workspaces[0]!.id;
  const { persona } = await data<{ persona: { id: string } }>(engine, 'personas.create', {
    workspace_id: ws,
    name: 'Waiting customer',
    prompt: 'Wants the parcel.',
  });
  const { scorecard } = await data<{ scorecard: { id: string } }>(engine, 'scorecards.create', {
    workspace_id: ws,
    name: 'Helpful',
    metrics: [
      { name: 'Ships', category: 'accuracy', type: 'contains', config: { text: 'shipped' } },
    ],
  });
  const scenarioNames = ['Late parcel', 'Lost parcel'];
  const scenarioIds: string[] = [];
  for (const name of scenarioNames) {
    const { scenario } = await data<{ scenario: { id: string } }>(engine, 'scenarios.create', {
      workspace_id: ws,
      name,
      prompt: 'A parcel question.',
      personas: [persona.id],
      targetAgents: targets,
      scorecard: scorecard.id,
      script: [{ say: `Where is my parcel? (${name})` }],
    });
    scenarioIds.push(scenario.id);
  }
  return { workspaceId: ws, scenarioIds, scenarioNames };
}

export interface SuiteRunView {
  id: string;
  version: number;
  status: string;
  execution_ids: string[];
  baseline_run_id: string | null;
  comparison_id: string | null;
  verdict: string | null;
  error: string | null;
}

/** The agent's drift suite runs, newest version first. */
export async function suiteRuns(engine: Engine, agentId: string): Promise<SuiteRunView[]> {
  return (
    await data<{ runs: SuiteRunView[] }>(engine, 'agents.regressionRuns', { agent_id: agentId })
  ).runs;
}
