// A drive for the fake Electron: through the IPC channel, one simulation whose simulated caller is
// a language model at FAKE_MODEL_URL (so its calls run on the bundle's model threads), against an
// in-house agent at the same URL; prints the simulation.
export default async function simulate(invoke, say) {
  const model = process.env.FAKE_MODEL_URL;
  const must = async (name, input) => {
    const answer = await invoke(name, input);
    if (!answer.ok) throw new Error(`${name}: ${JSON.stringify(answer)}`);
    return answer.data;
  };
  const ws = (await must('workspaces.list', {})).workspaces[0].id;
  await must('settings.update', {
    llm: { caller: { kind: 'openai', baseUrl: model, apiKey: 'caller-key', model: 'caller' } },
  });
  const agent = await must('agents.connect', {
    provider: 'http',
    agent_id: 'in-house',
    format: 'openai',
    credentials: { base_url: model, model: 'agent' },
  });
  const persona = (
    await must('personas.create', { workspace_id: ws, name: 'Quinn', prompt: 'Wants an order.' })
  ).persona;
  const scenario = (
    await must('scenarios.create', {
      workspace_id: ws,
      name: 'Order',
      prompt: 'Ask about order A1.',
      personas: [persona.id],
      targetAgents: [agent.id],
      maxTurns: 2,
    })
  ).scenario;
  const { execution } = await must('scenarios.execute', {
    workspace_id: ws,
    scenario_id: scenario.id,
  });
  await must('executions.get', { workspace_id: ws, execution_id: execution.id, wait: 30 });
  const { simulations } = await must('executions.simulations', {
    workspace_id: ws,
    execution_id: execution.id,
  });
  say('simulation', simulations[0]);
}
