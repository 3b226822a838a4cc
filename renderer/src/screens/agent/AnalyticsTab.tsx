import type { OperationOutput } from '../../../../src/operations/catalogue';
import { Box, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { useState } from 'react';
import { client } from '../../stores/session';
import { ConditionsTable } from '../../ui/CallerSummary';
import { ErrorNote, fmtNum, useLoad } from '../../ui/common';
import { plural } from '../../ui/words';
import { AgentTrend } from '../../ui/AnalyticsTrends';
import { WindowPicker, type AnalyticsWindow } from '../../ui/WindowPicker';

type AudioFigures = NonNullable<OperationOutput<'agents.analytics'>['audio']>;

/** Latency and talk-overs of the agent's audio simulations, overall and by line conditions. */
function AudioLatency({ audio }: { audio: AudioFigures }) {
  return (
    <>
      <Typography aria-label="Audio latency">
        {plural(audio.calls, 'audio call')} · response latency p50{' '}
        {fmtNum(audio.response_latency_ms.p50, ' ms')} · p90{' '}
        {fmtNum(audio.response_latency_ms.p90, ' ms')} · max{' '}
        {fmtNum(audio.response_latency_ms.max, ' ms')} · first audio p50{' '}
        {fmtNum(audio.time_to_first_audio_ms.p50, ' ms')} · {plural(audio.talk_overs, 'talk-over')}
      </Typography>
      <ConditionsTable rows={audio.by_conditions} />
    </>
  );
}

/**
 * The agent's simulations over a window (30 days at first): scores by category, pass rate, audio
 * latency, and the trend bucket by bucket.
 */
export function AnalyticsTab({ agentId }: { agentId: string }) {
  const [timeWindow, setTimeWindow] = useState<AnalyticsWindow>('30d');
  const analytics = useLoad(
    () =>
      client().invoke('agents.analytics', {
        agent_id: agentId,
        breakdown: 'category',
        window: timeWindow,
      }),
    [agentId, timeWindow],
  );
  const data = analytics.data;
  if (!data) return <ErrorNote error={analytics.error} />;
  return (
    <Box>
      <WindowPicker value={timeWindow} onChange={setTimeWindow} />
      <Typography>
        Overall score {fmtNum(data.overallScore)} · pass rate {fmtNum(data.passRate, '%')} ·{' '}
        {data.simulations.total} simulations: {data.simulations.passed} passed,{' '}
        {data.simulations.errored} errored
      </Typography>
      {data.audio && <AudioLatency audio={data.audio} />}
      <AgentTrend trend={data.trend} />
      {data.categoryBreakdown.length > 0 && (
        <BarChart
          height={260}
          xAxis={[{ scaleType: 'band', data: data.categoryBreakdown.map((c) => c.category) }]}
          series={[{ data: data.categoryBreakdown.map((c) => c.score), label: 'Score' }]}
        />
      )}
      {data.categoryBreakdown.map((c) => (
        <Typography key={c.category} variant="body2">
          {c.category}: {c.score} ({c.trend}, {c.status.replace('_', ' ')})
        </Typography>
      ))}
      {data.recommendations.map((r: string) => (
        <Typography key={r} variant="body2">
          • {r}
        </Typography>
      ))}
    </Box>
  );
}
