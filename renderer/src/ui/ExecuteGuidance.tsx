import { Alert, AlertTitle, Button, Link, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import type { OutputOf } from '../client';
import { client, useSession, wsInput } from '../stores/session';
import { ErrorNote, useAction, useLoad } from './common';

/**
 * The Execute dialog's word before the click: where the execution needs a language model and
 * none is configured (a model plays the caller of a scenario without a script; a judge scores an
 * llm_judge metric or the expected outcome), it says so, links to Settings → Language models,
 * and offers what runs without one: a scorecard with no judged metric, or a caller script. The
 * engine refuses the same cases (src/simulations/start.ts); this says it first.
 */

type Scenario = OutputOf<'scenarios.list'>['scenarios'][number];
type Scorecard = OutputOf<'scorecards.list'>['scorecards'][number];
type Roles = OutputOf<'settings.get'>['llm'];

const judged = (card: Scorecard | undefined) =>
  card?.metrics.some((m) => m.type === 'llm_judge') ?? false;

/** The roles the scenario needs a model for that have none, with the scorecard it is judged by. */
function missingModels(
  scenario: Scenario,
  scorecardId: string | null,
  cards: Scorecard[],
  llm: Roles,
) {
  const card = cards.find((c) => c.id === scorecardId);
  const hasScript = Array.isArray(scenario.script) && scenario.script.length > 0;
  return {
    card,
    caller: !hasScript && !llm.caller,
    judgeByCard: judged(card) && !llm.judge,
    judgeByOutcome: Boolean(scenario.expectedOutcome) && !llm.judge,
  };
}

/** Scorecards the workspace has that no model judges: each offered as this scenario's. */
function JudgeFreeScorecards({
  cards,
  onUse,
}: {
  cards: Scorecard[];
  onUse: (card: Scorecard) => void;
}) {
  const free = cards.filter((c) => !judged(c));
  if (!free.length)
    return (
      <Typography variant="body2">
        No scorecard of this workspace runs without a judge: make one with deterministic metrics
        only.
      </Typography>
    );
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
      <Typography variant="body2">Or score it with a scorecard that needs no model:</Typography>
      {free.map((c) => (
        <Button key={c.id} size="small" variant="outlined" onClick={() => onUse(c)}>
          Use “{c.name}”
        </Button>
      ))}
    </Stack>
  );
}

/** The sentences saying which model is missing and why, and the Settings link. */
function MissingModelWords({ need }: { need: ReturnType<typeof missingModels> }) {
  const navigate = useSession((s) => s.navigate);
  return (
    <>
      <AlertTitle>This execution needs a language model, and none is configured</AlertTitle>
      {need.caller && (
        <div>The scenario has no caller script, so a model plays the caller (the caller role).</div>
      )}
      {need.judgeByCard && (
        <div>
          The scorecard “{need.card?.name}” has an llm_judge metric, scored by a model (the judge
          role).
        </div>
      )}
      {need.judgeByOutcome && (
        <div>
          Its expected outcome is judged by a model (the judge role): clear it to run without.
        </div>
      )}
      <Link component="button" type="button" onClick={() => navigate('settings/models')}>
        Open Settings → Language models
      </Link>
    </>
  );
}

export function ExecuteGuidance({
  scenario,
  onEditScenario,
}: {
  scenario: Scenario;
  /** Opens the scenario's editor, where a caller script is written. */
  onEditScenario?: () => void;
}) {
  const [scorecardId, setScorecardId] = useState(scenario.scorecard);
  const data = useLoad(async () => {
    const [settings, list] = await Promise.all([
      client().invoke('settings.get'),
      client().invoke('scorecards.list', wsInput({ limit: 100 })),
    ]);
    return { llm: settings.llm, cards: list.scorecards };
  }, []);
  const use = useAction(async (card: Scorecard) => {
    await client().invoke(
      'scenarios.update',
      wsInput({ scenario_id: scenario.id, scorecard: card.id }),
    );
    setScorecardId(card.id);
  });
  if (!data.data) return null;
  const need = missingModels(scenario, scorecardId, data.data.cards, data.data.llm);
  if (!need.caller && !need.judgeByCard && !need.judgeByOutcome) return null;
  return (
    <Alert severity="warning" role="note" aria-label="Model needed" sx={{ mb: 1 }}>
      <MissingModelWords need={need} />
      {need.judgeByCard && (
        <JudgeFreeScorecards cards={data.data.cards} onUse={(c) => void use.run(c)} />
      )}
      {need.caller && onEditScenario && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mt: 1 }}>
          <Typography variant="body2">Or let a script play the caller:</Typography>
          <Button size="small" variant="outlined" onClick={onEditScenario}>
            Write a caller script
          </Button>
        </Stack>
      )}
      <ErrorNote error={use.error} />
    </Alert>
  );
}
