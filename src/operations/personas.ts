import { z } from 'zod';
import { CallerBehaviours, PersonaNoise } from '../domain/callers.js';
import { PersonaVoice } from '../domain/audio.js';
import { Persona, PersonaEditable, PersonaListFields } from '../domain/personas.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../clock.js';
import {
  CommaList,
  Id,
  pagination,
  Pagination,
  Paging,
  SortOrder,
  Tags,
  Timestamp,
  WorkspaceParams,
  deleted,
  checked,
  countedNames,
  DeletedOrChecked,
  DryRunQuery,
} from './common.js';
import { defineOperation } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { withKey, withKeys, withoutKey } from './suite-key-answers.js';

export { BACKGROUND_NOISES, DIFFICULTIES, EMOTIONS } from '../domain/personas.js';

/** Language tags are stored canonical (`en`, `en-US`), so filters match however they were typed. */
export const Language = z
  .string()
  .trim()
  .min(2)
  .max(35)
  .transform((value, ctx) => {
    try {
      return Intl.getCanonicalLocales(value)[0]!;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a language code such as en, es or en-US' });
      return z.NEVER;
    }
  });

const Name = z.string().trim().min(1).max(200);
const Prompt = z.string().trim().min(1).max(20_000);

/** What a caller sends: the persona's editable fields, with the rules of its text. */
const PersonaInput = PersonaEditable.extend({
  name: Name,
  language: Language,
  prompt: Prompt,
  tags: Tags,
  voice: PersonaVoice.nullable().describe(
    'How the persona sounds in audio simulations; null: the offline system voice',
  ),
  noise: PersonaNoise.nullable().describe(
    'Audio mode: speech over its backgroundNoise; null: by difficulty (easy 25 dB, medium 15, hard 8, very_hard 3)',
  ),
  behaviours: CallerBehaviours.nullable().describe(
    'Audio mode: barge-ins, silences, backchannels and hang-ups, each by chance per agent turn',
  ),
}).partial();

/** A new persona's fields (the suite files are written from it too). */
export const PersonaCreateInput = PersonaInput.required({ name: true, prompt: true });

const UsageStats = z.object({
  total_simulations: z.number().int(),
  avg_score: z.number().nullable().describe('Mean score of scored simulations; null before any'),
  last_used: Timestamp.nullable(),
});

// Create answers as before; GET and list answer the suite key (stored, or the one an export gives).
export const PersonaSchema = Persona.omit({ key: true });
const PersonaListItem = PersonaListFields.extend({ key: SuiteKey, usage_stats: UsageStats });
const PersonaWithUsage = Persona.extend({ key: SuiteKey, usage_stats: UsageStats });
const PersonaUpdated = Persona.pick({
  id: true,
  name: true,
  language: true,
  prompt: true,
  emotion: true,
  difficulty: true,
  backgroundNoise: true,
  tags: true,
  updated_at: true,
});

const base = '/api/v1/workspaces/:workspace_id/personas';
const ItemParams = { ...WorkspaceParams, persona_id: Id };

export const personaOperations = [
  defineOperation({
    name: 'personas.create',
    summary: 'Create a persona (a simulated caller)',
    http: { method: 'POST', path: base, status: 201 },
    params: WorkspaceParams,
    body: PersonaCreateInput.shape,
    output: z.object({ persona: PersonaSchema }),
    async handler({ workspace_id, ...input }, ctx) {
      const now = isoNow(ctx.clock);
      const persona = await ctx.store.personas.insert(workspace_id, {
        id: newId('per', ctx.clock.now()),
        key: null,
        name: input.name,
        language: input.language ?? 'en',
        prompt: input.prompt,
        emotion: input.emotion ?? 'neutral',
        difficulty: input.difficulty ?? 'medium',
        backgroundNoise: input.backgroundNoise ?? 'none',
        tags: input.tags ?? [],
        voice: input.voice ?? null,
        noise: input.noise ?? null,
        behaviours: input.behaviours ?? null,
        created_at: now,
        updated_at: now,
        created_by: ctx.caller.user,
      });
      const { usage_stats: _none, ...full } = persona;
      return { persona: withoutKey(full) };
    },
  }),

  defineOperation({
    name: 'personas.list',
    summary:
      'List personas with filters, sorting and paging. `tags` matches personas carrying every listed tag.',
    http: { method: 'GET', path: base },
    params: WorkspaceParams,
    query: {
      name: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe('Case-insensitive partial match on the name'),
      language: Language.optional(),
      emotion: Persona.shape.emotion.optional(),
      difficulty: Persona.shape.difficulty.optional(),
      tags: CommaList.optional().describe('Comma-separated; a persona must carry all of them'),
      createdBy: Id.optional().describe('Creator user id (created_by.id)'),
      sortBy: z.enum(['name', 'createdAt', 'updatedAt', 'usage']).default('createdAt'),
      sortOrder: SortOrder.default('desc'),
      ...Paging,
    },
    output: z.object({ personas: z.array(PersonaListItem), pagination: Pagination }),
    async handler({ workspace_id, ...q }, ctx) {
      const { items, total } = await ctx.store.personas.list(workspace_id, q);
      const personas = await withKeys(ctx.store, 'persona', workspace_id, items);
      return { personas, pagination: pagination(total, q.limit, q.offset) };
    },
  }),

  defineOperation({
    name: 'personas.get',
    summary: 'Get one persona, with its usage statistics',
    http: { method: 'GET', path: `${base}/:persona_id` },
    params: ItemParams,
    output: z.object({ persona: PersonaWithUsage }),
    async handler({ workspace_id, persona_id }, ctx) {
      const persona = await ctx.store.personas.get(workspace_id, persona_id);
      if (!persona) throw notFound('persona', persona_id);
      return { persona: await withKey(ctx.store, 'persona', workspace_id, persona) };
    },
  }),

  defineOperation({
    name: 'personas.update',
    summary: "Change any subset of a persona's fields",
    http: { method: 'PUT', path: `${base}/:persona_id` },
    params: ItemParams,
    body: PersonaInput.shape,
    output: z.object({ persona: PersonaUpdated }),
    async handler({ workspace_id, persona_id, ...patch }, ctx) {
      if (Object.values(patch).every((v) => v === undefined)) {
        throw invalidField('', 'send at least one field to change');
      }
      const p = await ctx.store.personas.update(workspace_id, persona_id, patch, isoNow(ctx.clock));
      if (!p) throw notFound('persona', persona_id);
      // The specification's fields exactly (the voice is in personas.get).
      const { id, name, language, prompt, emotion, difficulty, backgroundNoise, tags } = p;
      return {
        persona: {
          ...{ id, name, language, prompt, emotion, difficulty, backgroundNoise, tags },
          updated_at: p.updated_at,
        },
      };
    },
  }),

  defineOperation({
    name: 'personas.delete',
    summary: 'Delete a persona that no scenario uses',
    http: { method: 'DELETE', path: `${base}/:persona_id` },
    params: ItemParams,
    query: DryRunQuery,
    output: DeletedOrChecked,
    async handler({ workspace_id, persona_id, dryRun }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const persona = await tx.personas.get(workspace_id, persona_id);
        if (!persona) throw notFound('persona', persona_id);
        const users = await tx.scenarios.referencing(workspace_id, 'personas', persona_id);
        if (users.length) {
          throw conflict(
            `Persona '${persona.name}' is used by ${countedNames(users, 'scenario')}; remove it from them first`,
            { scenarios: users },
          );
        }
        if (dryRun) return checked(persona_id);
        await tx.personas.delete(workspace_id, persona_id);
        return deleted(persona_id);
      });
    },
  }),
];
