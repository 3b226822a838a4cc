import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** An agent at its own URL that greets and hangs up. */
const ownAgent = () =>
  startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ reply: 'Hello. [END_CALL]', ended: true }));
  });

describe('agents shared with workspaces', () => {
  let s: TestServer;
  let agent: LocalServer;
  let made = 0;

  beforeAll(async () => {
    [s, agent] = await Promise.all([startServer(), ownAgent()]);
  });
  afterAll(async () => {
    await s.stop();
    await agent.stop();
  });

  /** A fresh agent at the local URL, shared with nothing. */
  const newAgent = () => connectHttpAgent(s, `agent-${++made}`, agent.url);
  const newWorkspace = async (name: string): Promise<string> =>
    (await s.call('POST', '/api/v1/workspaces', { name })).body.data.workspace.id as string;
  const tokenFor = async (workspaceId: string): Promise<Record<string, string>> => {
    const made = await s.call('POST', `/api/v1/workspaces/${workspaceId}/tokens`, {});
    return { authorization: `Bearer ${made.body.data.token.token}` };
  };
  const share = (agentId: string, workspaceIds: string[], headers?: Record<string, string>) =>
    s.call('PUT', `/v1/agents/${agentId}/workspaces`, { workspaceIds }, headers);
  /** A scripted scenario (no model needed) of the first workspace on these agents. */
  const scenarioOn = async (targetAgents: string[]): Promise<string> => {
    const persona = await createPersona(s, `Ann ${++made}`);
    const res = await s.ws('POST', '/scenarios', {
      name: `Greeting ${made}`,
      prompt: 'Say hello.',
      personas: [persona],
      targetAgents,
      script: [{ say: 'Hello?' }],
    });
    expect(res.status).toBe(201);
    return res.body.data.scenario.id as string;
  };
  const executionsOf = async (scenarioId: string): Promise<number> => {
    const { executions } = (await s.ws('GET', '/executions?limit=100')).body.data;
    return (executions as { scenario_id: string }[]).filter((e) => e.scenario_id === scenarioId)
      .length;
  };

  it('every agent answer says which workspaces it is shared with: none at first', async () => {
    const id = await newAgent();
    expect((await s.call('GET', `/v1/agents/${id}`)).body.workspaces).toEqual([]);
    const listed = (await s.call('GET', '/v1/agents')).body.agents as { id: string }[];
    expect(listed.find((a) => a.id === id)).toMatchObject({ workspaces: [] });
    const patched = await s.call('PATCH', `/v1/agents/${id}`, { tags: ['x'] });
    expect(patched.body.workspaces).toEqual([]);
  });

  it('PUT /v1/agents/{id}/workspaces replaces the list, answered on the agent', async () => {
    const id = await newAgent();
    const other = await newWorkspace('Sharing B');
    const res = await share(id, [other, s.workspaceId, other]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, workspaces: [s.workspaceId, other].sort() });
    expect((await s.call('GET', `/v1/agents/${id}`)).body.workspaces).toEqual(
      [s.workspaceId, other].sort(),
    );
    expect((await share(id, [other])).body.workspaces).toEqual([other]);
    expect((await share(id, [])).body.workspaces).toEqual([]);
  });

  it('refuses unknown workspace ids with a 400 naming each, and changes nothing', async () => {
    const id = await newAgent();
    await share(id, [s.workspaceId]);
    const res = await share(id, [s.workspaceId, 'ws_nope', 'ws_gone']);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'workspaceIds[1]', message: expect.stringContaining('ws_nope') },
      { path: 'workspaceIds[2]', message: expect.stringContaining('ws_gone') },
    ]);
    expect((await s.call('GET', `/v1/agents/${id}`)).body.workspaces).toEqual([s.workspaceId]);
    expect(
      (await s.call('PUT', '/v1/agents/agt_missing/workspaces', { workspaceIds: [] })).status,
    ).toBe(404);
  });

  it('a workspace token may not share agents (403), even with its own workspace', async () => {
    const id = await newAgent();
    const res = await share(id, [s.workspaceId], await tokenFor(s.workspaceId));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await s.call('GET', `/v1/agents/${id}`)).body.workspaces).toEqual([]);
  });

  it('a token executing a scenario on an agent not shared with its workspace: 403 naming it, nothing queued', async () => {
    const shared = await newAgent();
    const unshared = await newAgent();
    const elsewhere = await newWorkspace('Sharing C');
    await share(shared, [s.workspaceId]);
    await share(unshared, [elsewhere]);
    const scenario = await scenarioOn([shared, unshared]);
    const token = await tokenFor(s.workspaceId);

    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, {}, token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'forbidden',
        message: `agent ${unshared} is not shared with workspace ${s.workspaceId}`,
      },
    });
    // The replica channel (the engine's own credentials) is refused the same way.
    const replica = await s.ws(
      'POST',
      `/scenarios/${scenario}/execute`,
      { channel: 'replica' },
      token,
    );
    expect(replica.status).toBe(403);
    expect(await executionsOf(scenario)).toBe(0);

    await share(unshared, [elsewhere, s.workspaceId]);
    const ok = await s.ws('POST', `/scenarios/${scenario}/execute`, {}, token);
    expect(ok.status).toBe(202);
    expect(ok.body.data.execution.simulations_created).toBe(2);
    expect(await executionsOf(scenario)).toBe(1);
  });

  it('an API key executes any agent, shared or not, as before', async () => {
    const scenario = await scenarioOn([await newAgent()]);
    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, {});
    expect(res.status).toBe(202);
    expect(await executionsOf(scenario)).toBe(1);
  });

  it('a token running a schedule now on an unshared agent: 403, no run, nothing queued', async () => {
    const id = await newAgent();
    const scenario = await scenarioOn([id]);
    const schedule = (
      await s.ws('POST', '/schedules', {
        name: 'Nightly',
        scenarioId: scenario,
        periodicity: 'daily',
      })
    ).body.data.schedule.id as string;
    const token = await tokenFor(s.workspaceId);

    const res = await s.ws('POST', `/schedules/${schedule}/run`, undefined, token);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      `agent ${id} is not shared with workspace ${s.workspaceId}`,
    );
    expect((await s.ws('GET', `/schedules/${schedule}/runs`)).body.data.runs).toEqual([]);
    expect(await executionsOf(scenario)).toBe(0);

    await share(id, [s.workspaceId]);
    const ok = await s.ws('POST', `/schedules/${schedule}/run`, undefined, token);
    expect(ok.status).toBe(202);
    expect(ok.body.data.run.outcome).toBe('started');
    // An API key runs it whatever the sharing.
    await share(id, []);
    expect((await s.ws('POST', `/schedules/${schedule}/run`)).body.data.run.outcome).toBe(
      'started',
    );
  });

  it('a token may not schedule, nor point a schedule at, a scenario on unshared agents', async () => {
    const id = await newAgent();
    const unsharedScenario = await scenarioOn([id]);
    const sharedScenario = await scenarioOn([]);
    const token = await tokenFor(s.workspaceId);
    const body = { name: 'Hourly', scenarioId: unsharedScenario, periodicity: 'hourly' };

    const created = await s.ws('POST', '/schedules', body, token);
    expect(created.status).toBe(403);
    expect(created.body.error.message).toBe(
      `agent ${id} is not shared with workspace ${s.workspaceId}`,
    );
    const schedule = (
      await s.ws('POST', '/schedules', { ...body, scenarioId: sharedScenario }, token)
    ).body.data.schedule.id as string;
    const moved = await s.ws(
      'PATCH',
      `/schedules/${schedule}`,
      { scenarioId: unsharedScenario },
      token,
    );
    expect(moved.status).toBe(403);
    expect((await s.ws('GET', `/schedules/${schedule}`)).body.data.schedule.scenarioId).toBe(
      sharedScenario,
    );
    // An API key schedules it as before.
    expect((await s.ws('POST', '/schedules', body)).status).toBe(201);
  });

  it('a token may not add an unshared agent to a scenario a schedule runs', async () => {
    const shared = await newAgent();
    const unshared = await newAgent();
    await share(shared, [s.workspaceId]);
    const token = await tokenFor(s.workspaceId);
    const persona = await createPersona(s, `Bo ${++made}`);
    const fields = { prompt: 'Say hello.', personas: [persona], script: [{ say: 'Hello?' }] };

    const refused = await s.ws(
      'POST',
      '/scenarios',
      { ...fields, name: `Mixed ${made}`, targetAgents: [shared, unshared] },
      token,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `agent ${unshared} is not shared with workspace ${s.workspaceId}`,
    );
    const scenario = (
      await s.ws(
        'POST',
        '/scenarios',
        { ...fields, name: `Ok ${made}`, targetAgents: [shared] },
        token,
      )
    ).body.data.scenario.id as string;
    const update = await s.ws(
      'PUT',
      `/scenarios/${scenario}`,
      { targetAgents: [shared, unshared] },
      token,
    );
    expect(update.status).toBe(403);
    expect((await s.ws('GET', `/scenarios/${scenario}`)).body.data.scenario.targetAgents).toEqual([
      shared,
    ]);
    // Agents an API key put there stay: the token may edit the rest of the scenario.
    expect(
      (await s.ws('PUT', `/scenarios/${scenario}`, { targetAgents: [shared, unshared] })).status,
    ).toBe(200);
    const renamed = await s.ws('PUT', `/scenarios/${scenario}`, { name: `Renamed ${made}` }, token);
    expect(renamed.status).toBe(200);
  });
});
