import type { Engine } from '../../src/engine.js';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { replicaAgent } from './support-sam.js';

/** The secret key every instance of a test team server shares (and every PostgreSQL test store). */
export const TEAM_KEY = 'team-test-key-0123456789-0123456789';

/**
 * What test team servers let their outbound requests reach: loopback, where every fake target,
 * model and provider of the tests listens. A team server refuses it unless allowed.
 */
export const ALLOW_LOOPBACK = ['127.0.0.0/8', '::1'];
/** The same as CALLBENCH_OUTBOUND_ALLOW, for team servers started through the CLI. */
export const ALLOW_LOOPBACK_ENV = { CALLBENCH_OUTBOUND_ALLOW: ALLOW_LOOPBACK.join(',') };

const snapshot: AgentSnapshot = {
  name: 'Team agent',
  description: null,
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: false,
  configuration: {
    model: { provider: 'openai', name: 'team', temperature: 0.2, maxTokens: 100 },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt: 'You are a support agent.',
    firstMessage: 'Hello, how can I help?',
    tools: [],
  },
};

/** What a team test runs: a scripted scenario of `turns` caller lines against a replica agent. */
export interface TeamScenario {
  workspaceId: string;
  scenarioId: string;
}

async function data<T>(engine: Engine, operation: string, input: object): Promise<T> {
  const res = await engine.invoke(operation, input);
  if (res.status >= 300) throw new Error(`${operation}: ${JSON.stringify(res)}`);
  return res.data as T;
}

/**
 * An agent (its replica answers from the engine's default model), a persona, a scorecard and a
 * scripted scenario, made through one instance of the team server.
 */
export async function seedTeamScenario(engine: Engine, turns: number): Promise<TeamScenario> {
  const now = new Date().toISOString();
  await engine.store.agents.insert(
    replicaAgent({ id: 'agt_team', providerAgentId: 't', snapshot: snapshot, at: now }),
  );
  const { workspaces } = await data<{ workspaces: { id: string }[] }>(
    engine,
    'workspaces.list',
    {},
  );
  const ws = workspaces[0]!.id;
  const { persona } = await data<{ persona: { id: string } }>(engine, 'personas.create', {
    workspace_id: ws,
    name: 'Team caller',
    prompt: 'Asks things.',
  });
  const { scorecard } = await data<{ scorecard: { id: string } }>(engine, 'scorecards.create', {
    workspace_id: ws,
    name: 'Team',
    metrics: [{ name: 'Short', category: 'efficiency', type: 'max_turns', config: { max: 50 } }],
  });
  const script = Array.from({ length: turns }, (_, i) => ({
    say: `Question number ${i + 1} about my order?`,
  }));
  const { scenario } = await data<{ scenario: { id: string } }>(engine, 'scenarios.create', {
    workspace_id: ws,
    name: 'Team',
    prompt: 'p',
    personas: [persona.id],
    targetAgents: ['agt_team'],
    scorecard: scorecard.id,
    script,
  });
  return { workspaceId: ws, scenarioId: scenario.id };
}

/** Starts executions of `runs` simulations in all (20 per execution, as the API allows). */
export async function executeRuns(
  engine: Engine,
  team: TeamScenario,
  runs: number,
): Promise<string[]> {
  const executions: string[] = [];
  for (let left = runs; left > 0; left -= 20) {
    const { execution } = await data<{ execution: { id: string } }>(engine, 'scenarios.execute', {
      workspace_id: team.workspaceId,
      scenario_id: team.scenarioId,
      runs: Math.min(20, left),
    });
    executions.push(execution.id);
  }
  return executions;
}
