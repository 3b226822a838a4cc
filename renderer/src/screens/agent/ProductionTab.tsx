import type { OperationOutput } from '../../../../src/operations/catalogue';
import { Box, Stack } from '@mui/material';
import { useState } from 'react';
import { useEngineRefresh } from '../../stores/events';
import { client } from '../../stores/session';
import { ErrorNote, useLoad } from '../../ui/common';
import { MonitoringSettings } from './MonitoringSettings';
import { ProductionFigures } from './ProductionFigures';
import { ScoredCall } from './ScoredCall';
import { ScoredCalls } from './ScoredCalls';
import { ReviewCallsButton } from '../../ui/review/ReviewCallsButton';

type Agent = OperationOutput<'agents.get'>;

/**
 * The agent in production: the figures of its scored calls, its monitoring settings, the scored
 * calls (filtered, paged) and the call chosen. Scores arriving in the background reload the
 * figures, the list and the call.
 */
export function ProductionTab({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const [callId, setCallId] = useState<string | null>(null);
  const figures = useLoad(
    () => client().invoke('agents.analytics', { agent_id: agent.id }),
    [agent.id],
  );
  useEngineRefresh(
    (e) => e.type === 'call.evaluated' && e.data.agentId === agent.id,
    () => void figures.reload(),
    1000,
  );
  return (
    <Box>
      <ErrorNote error={figures.error} />
      {figures.data && <ProductionFigures production={figures.data.production} />}
      <MonitoringSettings key={agent.updated_at} agent={agent} onSaved={onSaved} />
      <ReviewCallsButton agentId={agent.id} monitoring={agent.monitoring} />
      <Stack direction={{ xs: 'column', xl: 'row' }} spacing={2}>
        <Box sx={{ flex: 2, minWidth: 0 }}>
          <ScoredCalls
            agentId={agent.id}
            monitoring={agent.monitoring}
            selected={callId}
            onOpen={setCallId}
          />
        </Box>
        {callId && (
          <Box sx={{ flex: 3, minWidth: 0 }}>
            <ScoredCall key={callId} callId={callId} />
          </Box>
        )}
      </Stack>
    </Box>
  );
}
