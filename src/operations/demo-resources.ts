/**
 * What the demo is made of: the demo agent's snapshot, and the persona, scorecard and scenario
 * of the "Demo" workspace, as the bodies of the operations that create them (so they pass the
 * same validation as a tester's own).
 */
import { DEMO_NAMES, DEMO_ORDER } from '../domain/demo.js';
import type { AgentSnapshot } from '../domain/agents.js';
import { DEMO_GREETING } from '../demo/brain.js';

export const DEMO_SNAPSHOT: AgentSnapshot = {
  name: DEMO_NAMES.agent,
  description:
    'The built-in demo agent: a small order-support script served by Callbench itself (no account, key or network). Its knobs are under configuration.demo.',
  configuration: {
    model: { provider: null, name: null, temperature: null, maxTokens: null },
    voice: { provider: 'system', voiceId: null, stability: null, similarityBoost: null },
    prompt:
      'Greet the caller, ask for the order number, look it up with order_status, say what it found, and say goodbye.',
    firstMessage: DEMO_GREETING,
    tools: [
      {
        name: DEMO_NAMES.tool,
        description: 'Looks an order up by its number: its status and when it arrives',
        type: 'http',
        endpoint: null,
        method: 'GET',
        auth: 'none',
      },
    ],
    demo: { answerDelayMs: 0, talkOverCaller: false, silentTurn: null, hangUpAfter: null },
  },
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: ['demo'],
  textChat: true,
};

export const DEMO_PERSONA = {
  name: DEMO_NAMES.persona,
  prompt: 'A customer who wants to know where their order is. Polite and brief.',
  language: 'en',
  emotion: 'neutral',
  difficulty: 'easy',
  backgroundNoise: 'none',
  tags: ['demo'],
} as const;

/** Deterministic metrics only: the demo needs no judge model. */
export const DEMO_SCORECARD = {
  name: DEMO_NAMES.scorecard,
  description:
    'Needs no model: what the agent said and did, and how its voice behaved (audio figures are not applicable to a text run)',
  passThreshold: 80,
  metrics: [
    {
      name: 'Asks for the order number',
      category: 'conversation',
      type: 'contains',
      weight: 1,
      config: { text: 'order number' },
    },
    {
      name: 'Looks the order up',
      category: 'tools',
      type: 'tool_called',
      weight: 2,
      critical: true,
      config: { tool: DEMO_NAMES.tool, arguments: { order_id: DEMO_ORDER.id } },
    },
    {
      name: 'Agent closes the call',
      category: 'conversation',
      type: 'ended_by',
      weight: 1,
      config: { who: 'agent' },
    },
    {
      name: 'Responds within 2 s',
      category: 'voice',
      type: 'max_response_latency_ms',
      weight: 1,
      critical: true,
      config: { max: 2_000, on: 'max' },
    },
    {
      name: 'First audio within 3 s',
      category: 'voice',
      type: 'max_time_to_first_audio_ms',
      weight: 1,
      config: { max: 3_000 },
    },
    {
      name: 'Does not talk over the caller',
      category: 'voice',
      type: 'max_talk_over_ms',
      weight: 1,
      critical: true,
      config: { max: 500 },
    },
  ],
};

/**
 * A scripted caller: no model plays it, and each line checks what the agent answered. The order
 * number is a variable: an execution with another `order_id` shows the lookup failing.
 */
export const DEMO_SCENARIO = {
  name: DEMO_NAMES.scenario,
  prompt: 'You ordered a lamp last week (order {{order_id}}) and want to know where it is.',
  promptVariables: [{ name: 'order_id', type: 'string', defaultValue: DEMO_ORDER.id }],
  tags: ['demo'],
  script: [
    { say: 'Hi, I would like to check on my order.', expect: { contains: 'order number' } },
    {
      say: 'Sure, it is {{order_id}}.',
      expect: { toolCalled: DEMO_NAMES.tool, contains: DEMO_ORDER.status },
    },
    { say: 'Great, that is all. Thank you!', expect: { regex: 'goodbye' } },
  ],
  maxDurationMs: 60_000,
};
