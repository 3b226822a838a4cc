import { DEFAULT_MAX_RESPONSE_BYTES, responseCap, setResponseCap } from '../net/outbound.js';
import { z } from 'zod';
import { isoNow } from '../clock.js';
import { validationError } from '../errors.js';
import { isSealed, mask } from '../kernel/secret-box.js';
import { defineOperation, type OperationContext } from './types.js';
import { connectionFor, patchRoles, presentRoles } from '../llm/settings.js';
import { ROLES } from '../llm/types.js';
import {
  patchSpeech,
  PresentedSpeech,
  presentSpeech,
  RECORDING_RETENTION,
  recordingRetentionDays,
  SpeechPatch,
} from '../voice/speech-settings.js';
import { ConnectionTestSchema } from './common.js';
import { SIMULATION_LIMITS, simulationSettings } from '../simulations/settings.js';
import { Prices, PricesPatch } from '../domain/prices.js';
import { duplicatePrices, patchedPrices, pricesOf } from '../simulations/pricing.js';

const RoleSchema = z
  .object({
    kind: z.string(),
    baseUrl: z.string().nullable(),
    model: z.string(),
    apiKey: z.string().describe('Masked'),
    source: z.enum(['settings', 'environment']),
  })
  .nullable();
const RolePatch = z
  .strictObject({
    kind: z
      .enum(['openai', 'anthropic'])
      .optional()
      .describe('openai: any OpenAI-compatible chat completions API at baseUrl'),
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .optional(),
    apiKey: z.string().min(1).max(4_096).optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .nullable()
  .optional();

const SettingsSchema = z.object({
  llm: z
    .object({ caller: RoleSchema, judge: RoleSchema, replica: RoleSchema })
    .describe('The language model of each role (null: none configured)'),
  smtp: z
    .object({
      host: z.string(),
      port: z.number().int(),
      secure: z.boolean(),
      user: z.string().nullable(),
      password: z.string().nullable().describe('Masked'),
      from: z.string(),
      allowInsecure: z
        .boolean()
        .describe('A password may be sent without TLS (plaintext); off unless set'),
    })
    .nullable(),
  simulations: z
    .object({
      concurrency: z.number().int(),
      maxTurns: z.number().int(),
      maxDurationMs: z.number().int(),
    })
    .describe(
      'Simulations run at once, and the per-simulation limits (agent replies, wall time) a scenario may override',
    ),
  sync: z
    .object({ intervalMinutes: z.number().int() })
    .describe('Minutes between periodic syncs of connected agents'),
  speech: PresentedSpeech.describe(
    'Speech engines of audio simulations beyond the offline system voice (null: not configured)',
  ),
  recordings: z
    .object({ retentionDays: z.number().int() })
    .describe('Days a recording of an audio call is kept'),
  network: z
    .object({ maxResponseMiB: z.number() })
    .describe(
      'The largest answer taken from a provider, agent, model or OAuth endpoint (tool answers: 5 MiB at most)',
    ),
  prices: Prices.describe(
    "What simulations cost: each model's tokens, speech engines' characters and minutes, providers' call minutes (dollars)",
  ),
});

const MIB = 1024 * 1024;

/** Applies the stored network settings (at start and when they change). */
export async function applyNetworkSettings(store: OperationContext['store']): Promise<void> {
  const stored = await store.settings.get<{ maxResponseMiB?: number }>('network');
  setResponseCap(
    stored?.maxResponseMiB ? Math.round(stored.maxResponseMiB * MIB) : DEFAULT_MAX_RESPONSE_BYTES,
  );
}

const bounded = (k: keyof typeof SIMULATION_LIMITS) =>
  z.number().int().min(SIMULATION_LIMITS[k].min).max(SIMULATION_LIMITS[k].max).optional();
const SimulationsPatch = z.strictObject({
  concurrency: bounded('concurrency'),
  maxTurns: bounded('maxTurns'),
  maxDurationMs: bounded('maxDurationMs'),
});

const SmtpPatch = z.strictObject({
  host: z.string().min(1).max(255).optional(),
  port: z.number().int().min(1).max(65_535).optional(),
  secure: z
    .boolean()
    .optional()
    .describe('TLS from the start (port 465); otherwise STARTTLS when offered'),
  user: z.string().max(255).nullable().optional(),
  password: z
    .string()
    .max(1_024)
    .nullable()
    .optional()
    .describe('Stored encrypted; answered masked; sending the mask back keeps it'),
  from: z
    .string()
    .min(3)
    .max(320)
    .optional()
    .describe('Sender, such as "Callbench <qa@example.com>"'),
  allowInsecure: z
    .boolean()
    .optional()
    .describe(
      'With a password, mail is sent only over TLS (implicit or STARTTLS) unless this is true',
    ),
});

type StoredSmtp = {
  host: string;
  port: number;
  secure: boolean;
  user?: string | null;
  password?: unknown;
  from: string;
  allowInsecure?: boolean;
};

async function present(ctx: OperationContext) {
  const smtp = await ctx.store.settings.get<StoredSmtp>('smtp');
  return {
    llm: await presentRoles(ctx.store, ctx.secrets, ctx.llmDefault),
    smtp: smtp && {
      ...smtp,
      user: smtp.user ?? null,
      password: isSealed(smtp.password) ? mask(ctx.secrets.open(smtp.password)) : null,
      allowInsecure: smtp.allowInsecure ?? false,
    },
    simulations: await simulationSettings(ctx.store, ctx.simulationDefaults),
    sync: { intervalMinutes: await ctx.sync.intervalMinutes() },
    network: { maxResponseMiB: responseCap() / MIB },
    speech: await presentSpeech(ctx.store, ctx.secrets),
    recordings: { retentionDays: await recordingRetentionDays(ctx.store) },
    prices: await pricesOf(ctx.store),
  };
}

/** The prices with a change applied (each list given replaces its own); two prices for one model: 400. */
async function checkedPrices(ctx: OperationContext, prices: PricesPatch): Promise<Prices> {
  const duplicates = duplicatePrices(prices);
  if (duplicates.length)
    throw validationError(duplicates.map((e) => `${e.path} ${e.message}`).join('; '), duplicates);
  return patchedPrices(await pricesOf(ctx.store), prices);
}

export const settingsOperations = [
  defineOperation({
    name: 'settings.get',
    summary: 'Engine settings (secrets masked)',
    http: { method: 'GET', path: '/v1/settings' },
    output: SettingsSchema,
    handler: (_input, ctx) => present(ctx),
  }),
  defineOperation({
    name: 'settings.update',
    summary:
      'Change settings: `smtp`, `simulations` and each `llm` role are merged field by field (null removes smtp or a role)',
    http: { method: 'PATCH', path: '/v1/settings' },
    body: {
      smtp: SmtpPatch.nullable().optional(),
      llm: z.strictObject({ caller: RolePatch, judge: RolePatch, replica: RolePatch }).optional(),
      simulations: SimulationsPatch.optional(),
      sync: z.strictObject({ intervalMinutes: z.number().int().min(1).max(59) }).optional(),
      network: z.strictObject({ maxResponseMiB: z.number().min(1).max(1_024) }).optional(),
      speech: SpeechPatch.optional(),
      recordings: z
        .strictObject({
          retentionDays: z.number().int().min(RECORDING_RETENTION.min).max(RECORDING_RETENTION.max),
        })
        .optional(),
      prices: PricesPatch.optional().describe(
        'Each list given replaces the one stored: llm [{model, inputPerMTok, cachedInputPerMTok, outputPerMTok}], tts [{engine, model, perMChars}], stt [{engine, model, perMinute}], calls [{provider, perMinute}]',
      ),
    },
    output: SettingsSchema,
    async handler({ smtp, llm, simulations, sync, network, speech, recordings, prices }, ctx) {
      // Checked before anything is stored: a refused change of prices changes nothing else.
      const newPrices = prices && (await checkedPrices(ctx, prices));
      if (speech) {
        const patched = await patchSpeech(ctx.store, ctx.secrets, speech);
        if (patched.errors.length)
          throw validationError(
            patched.errors.map((e) => `${e.path} ${e.message}`).join('; '),
            patched.errors,
          );
        await ctx.store.settings.set('speech', patched.speech, isoNow(ctx.clock));
      }
      if (recordings) await ctx.store.settings.set('recordings', recordings, isoNow(ctx.clock));
      if (network) {
        await ctx.store.settings.set('network', network, isoNow(ctx.clock));
        await applyNetworkSettings(ctx.store);
      }
      if (simulations) {
        const current = (await ctx.store.settings.get<Record<string, number>>('simulations')) ?? {};
        await ctx.store.settings.set(
          'simulations',
          {
            ...current,
            ...Object.fromEntries(Object.entries(simulations).filter(([, v]) => v !== undefined)),
          },
          isoNow(ctx.clock),
        );
      }
      // Whichever instance runs the sync reschedules it; a larger pool starts more of the queue.
      if (sync) await ctx.store.settings.set('sync', sync, isoNow(ctx.clock));
      if (llm) {
        const { errors, roles } = await patchRoles(ctx.store, ctx.secrets, llm);
        if (errors.length)
          throw validationError(errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
        await ctx.store.settings.set('llm', roles, isoNow(ctx.clock));
      }
      if (smtp === null) await ctx.store.settings.set('smtp', null, isoNow(ctx.clock));
      else if (smtp) {
        const current = await ctx.store.settings.get<StoredSmtp>('smtp');
        const merged = {
          ...current,
          ...Object.fromEntries(Object.entries(smtp).filter(([, v]) => v !== undefined)),
        } as StoredSmtp;
        const missing = (['host', 'from'] as const).filter((k) => !merged[k]);
        if (missing.length)
          throw validationError(
            `smtp needs ${missing.join(' and ')}`,
            missing.map((k) => ({ path: `smtp.${k}`, message: 'is required' })),
          );
        merged.port ??= 587;
        merged.secure ??= merged.port === 465;
        if (typeof smtp.password === 'string')
          merged.password = ctx.secrets.sealUnlessMask(smtp.password, current?.password);
        await ctx.store.settings.set('smtp', merged, isoNow(ctx.clock));
      }
      if (newPrices) await ctx.store.settings.set('prices', newPrices, isoNow(ctx.clock));
      const keys = Object.entries({
        ...{ smtp, llm, simulations, sync, network, speech, recordings },
        prices,
      })
        .filter(([, v]) => v !== undefined)
        .map(([k]) => k);
      ctx.events.emit('settings.changed', { keys });
      return present(ctx);
    },
  }),
  defineOperation({
    name: 'settings.testModel',
    summary: "Test a role's language model now: one short call, no retries",
    http: { method: 'POST', path: '/v1/settings/llm/:role/test-connection' },
    params: { role: z.enum(ROLES) },
    output: ConnectionTestSchema,
    async handler({ role }, ctx) {
      const connection = await connectionFor(ctx.store, ctx.secrets, role, ctx.llmDefault);
      if (!connection)
        return {
          ok: false,
          latencyMs: 0,
          message: `no language model is configured for the ${role} role`,
        };
      return ctx.runner.testModel(connection);
    },
  }),
];
