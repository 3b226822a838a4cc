import { z } from 'zod';
import type { Persona } from '../../domain/personas.js';
import type { Scenario } from '../../domain/scenarios.js';
import type { Schedule } from '../../domain/schedules.js';
import type { Scorecard } from '../../domain/scorecards.js';
import { PersonaCreateInput } from '../personas.js';
import { ScenarioCreateInput } from '../scenarios.js';
import { ScheduleCreateInput } from '../schedules.js';
import { metricInputList, ScorecardCreateFields } from '../scorecards.js';
import { writeCasesCsv } from './cases-csv.js';
import { fileHead, type FileObject } from './file-common.js';
import { ordered } from './file-order.js';
import { kindSpec } from './kind-spec.js';

/** The suite kinds that belong to a workspace: personas, scorecards, scenarios and schedules. */

export const personaSpec = kindSpec<Persona>({
  kind: 'persona',
  dir: 'personas',
  input: PersonaCreateInput,
  fileSchema: z.strictObject({ ...fileHead, ...PersonaCreateInput.shape }),
  references: [],
});

/** Files name no metric ids: an import matches a scorecard's metrics by name. */
const ScorecardFileFields = z.strictObject({
  ...ScorecardCreateFields,
  metrics: metricInputList({ withId: false }),
});

export const scorecardSpec = kindSpec<Scorecard>({
  kind: 'scorecard',
  dir: 'scorecards',
  input: ScorecardFileFields,
  fileSchema: z.strictObject({ ...fileHead, ...ScorecardFileFields.shape }),
  references: [],
});

/** The CSV beside a scenario file that holds its cases. */
export const casesFileName = (key: string): string => `${key}.cases.csv`;
const CasesFileName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*\.cases\.csv$/, 'must be a file name such as <key>.cases.csv')
  .describe('A CSV beside this file: a header of promptVariables names, one row per case');

const scenarioShape = ScenarioCreateInput.shape;
const ScenarioFile = z.strictObject({
  ...fileHead,
  ...scenarioShape,
  personas: scenarioShape.personas.describe('Persona keys'),
  targetAgents: scenarioShape.targetAgents.describe('Agent keys (callbench.yaml agents)'),
  scorecard: scenarioShape.scorecard.describe('Scorecard key'),
  cases: z.union([CasesFileName, scenarioShape.cases.unwrap()]).optional(),
});

/** Cases go to a CSV when there are some and variables to name its columns; else inline. */
const casesInCsv = (s: Pick<Scenario, 'cases' | 'promptVariables'>): boolean =>
  !!s.cases?.length && s.promptVariables.length > 0;

/** A scenario's cases CSV (header in promptVariables order), or null when they stay inline. */
export function scenarioCasesFile(
  scenario: Pick<Scenario, 'cases' | 'promptVariables'>,
  key: string,
): { name: string; content: string } | null {
  if (!casesInCsv(scenario)) return null;
  const names = scenario.promptVariables.map((v) => v.name);
  return { name: casesFileName(key), content: writeCasesCsv(names, scenario.cases ?? []) };
}

export const scenarioSpec = kindSpec<Scenario>({
  kind: 'scenario',
  dir: 'scenarios',
  input: ScenarioCreateInput,
  fileSchema: ScenarioFile,
  references: [
    { path: 'personas', kind: 'persona', many: true },
    { path: 'targetAgents', kind: 'agent', many: true },
    { path: 'scorecard', kind: 'scorecard', many: false },
  ],
  fields(scenario, key): FileObject {
    const fields = ordered(ScenarioCreateInput, scenario) as FileObject;
    return casesInCsv(scenario) ? { ...fields, cases: casesFileName(key) } : fields;
  },
  inputOf(fields, refs): FileObject {
    return typeof fields.cases === 'string'
      ? { ...fields, cases: refs.cases(fields.cases) }
      : fields;
  },
});

const ScheduleFile = z.strictObject({
  ...fileHead,
  ...ScheduleCreateInput.shape,
  scenarioId: ScheduleCreateInput.shape.scenarioId.describe('Scenario key'),
});

export const scheduleSpec = kindSpec<Schedule>({
  kind: 'schedule',
  dir: 'schedules',
  input: ScheduleCreateInput,
  fileSchema: ScheduleFile,
  references: [{ path: 'scenarioId', kind: 'scenario', many: false }],
});
