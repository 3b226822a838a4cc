import { z } from 'zod';
import { notImplemented } from '../errors.js';
import { CommaList, Id } from './common.js';
import { defineOperation } from './types.js';

const PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland', 'http'] as const;
const pending = (what: string) => () => {
  throw notImplemented(what, 'provider connections issue');
};
const AgentParams = { agent_id: Id };

/** The agent endpoints of the specification; their behaviour lands with the provider issue. */
export const agentOperations = [
  defineOperation({
    name: 'agents.connect',
    summary: 'Connect an agent from its provider',
    http: { method: 'POST', path: '/v1/agents/connect', status: 201 },
    body: {
      provider: z.enum(PROVIDERS),
      agent_id: z.string().min(1).max(256),
      credentials: z.strictObject({ api_key: z.string().min(1).max(4_096).optional(), base_url: z.url().optional() }),
      format: z.enum(['openai', 'simple']).optional(),
    },
    handler: pending('Connecting agents'),
  }),
  defineOperation({
    name: 'agents.list',
    summary: 'List connected agents',
    http: { method: 'GET', path: '/v1/agents' },
    query: { tags: CommaList.optional() },
    handler: pending('Listing agents'),
  }),
  defineOperation({
    name: 'agents.get',
    summary: 'Get an agent',
    http: { method: 'GET', path: '/v1/agents/:agent_id' },
    params: AgentParams,
    handler: pending('Reading agents'),
  }),
  defineOperation({
    name: 'agents.update',
    summary: 'Set local overrides of an agent\'s configuration and its tags',
    http: { method: 'PATCH', path: '/v1/agents/:agent_id' },
    params: AgentParams,
    body: { configuration: z.record(z.string(), z.unknown()).optional(), tags: z.array(z.string()).optional(), channel: z.enum(['provider', 'replica', 'http']).optional() },
    handler: pending('Changing agents'),
  }),
  defineOperation({
    name: 'agents.tools',
    summary: 'The tools of an agent with their success rate and response time',
    http: { method: 'GET', path: '/v1/agents/:agent_id/tools' },
    params: AgentParams,
    handler: pending('Agent tools'),
  }),
  defineOperation({
    name: 'agents.analytics',
    summary: 'Agent analytics by scorecard category',
    http: { method: 'GET', path: '/v1/agents/:agent_id/analytics' },
    params: AgentParams,
    query: { breakdown: z.enum(['category']).optional(), days: z.coerce.number().int().min(1).max(365).optional() },
    handler: pending('Agent analytics'),
  }),
];
