import {
  Box,
  Card,
  CardContent,
  Chip,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import type { OutputOf } from '../client';
import { fmtNum } from './common';
import { lineSound, type CallLine } from './lineSound';

type Sim = OutputOf<'simulations.get'>['simulation'];
type Caller = NonNullable<NonNullable<Sim['audio']>['caller']>;
type Turn = Sim['turns'][number];
type Act = NonNullable<Turn['act']>;
/** One row of `by_conditions`: audio calls grouped by the caller's noise and line. */
export type ConditionRow = NonNullable<
  OutputOf<'executions.get'>['execution']['audio']
>['by_conditions'][number];

const ACTS: Record<Act, string> = {
  barge_in: 'barge-in',
  backchannel: 'backchannel',
  dtmf: 'keypad',
};

/** A word error rate as a percentage ("14.3%"), or a dash. */
export const fmtWer = (wer: number | null | undefined) =>
  wer === null || wer === undefined ? '—' : `${Math.round(wer * 1000) / 10}%`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const words = (key: string) => key.replace(/_/g, ' ');

/** One fact of the caller panel: its name, then what happened. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
        {label}
      </Typography>
      <Box component="dd" sx={{ m: 0, display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
        {children}
      </Box>
    </>
  );
}

const Text = ({ children }: { children: ReactNode }) => (
  <Typography variant="body2" component="span">
    {children}
  </Typography>
);

function LineFacts({ line }: { line: CallLine }) {
  const lostShare = line.frames ? Math.round((1000 * line.frames_lost) / line.frames) / 10 : 0;
  return (
    <>
      <Fact label="Line">
        <Chip size="small" label={line.profile} />
        <Text>
          {lineSound(line)} · loss {line.loss_percent}% · jitter {line.jitter_ms} ms · latency{' '}
          {line.latency_ms} ms
        </Text>
      </Fact>
      <Fact label="Frames lost">
        <Text>
          {line.frames_lost} of {line.frames} ({lostShare}%)
        </Text>
      </Fact>
      <Fact label="Seed">
        <Chip size="small" variant="outlined" label={`seed ${line.seed}`} />
        <Text>runs again with the same losses, jitter and caller behaviours</Text>
      </Fact>
    </>
  );
}

function RecognitionFact({ asr }: { asr: Caller['asr'] }) {
  if (!asr)
    return (
      <Fact label="Recognition">
        <Text>the agent&apos;s provider did not say what it heard</Text>
      </Fact>
    );
  return (
    <Fact label="Recognition">
      <Chip
        size="small"
        color={asr.wer ? 'warning' : 'success'}
        variant="outlined"
        label={`WER ${fmtWer(asr.wer)}`}
      />
      <Text>
        over {plural(asr.words, 'word')} · {asr.substitutions} substituted · {asr.deletions} missed
        · {asr.insertions} added
      </Text>
      {asr.misheard.map((m, i) => (
        <Chip
          key={i}
          size="small"
          color="warning"
          title={`a ${m.kind} the agent misheard`}
          label={`${m.said} → ${m.heard ?? '(missed)'}`}
        />
      ))}
    </Fact>
  );
}

/**
 * The realistic caller of an audio simulation: the line it called on (and the seed that replays
 * it), the noise around it, what it did (barge-ins, backchannels, silences, digits, hang-up) and
 * how the agent took it, and what the agent's recognition made of its words.
 */
export function CallerPanel({ caller }: { caller: Caller }) {
  const b = caller.barge_ins;
  return (
    <Card variant="outlined" component="section" aria-label="Caller" sx={{ mb: 2 }}>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Caller
        </Typography>
        <Box
          component="dl"
          sx={{
            display: 'grid',
            gridTemplateColumns: 'max-content 1fr',
            columnGap: 2,
            rowGap: 1,
            alignItems: 'center',
            m: 0,
          }}
        >
          <LineFacts line={caller.line} />
          <Fact label="Noise">
            <Text>
              {caller.noise.snr_db === null
                ? 'none'
                : `${words(caller.noise.bed)} at ${caller.noise.snr_db} dB SNR`}
            </Text>
          </Fact>
          <Fact label="Barge-ins">
            <Text>
              {b.count}
              {b.count > 0 &&
                ` · agent stopped in p50 ${fmtNum(b.stop_ms.p50, ' ms')} · max ${fmtNum(b.stop_ms.max, ' ms')}`}
            </Text>
            {b.not_stopped > 0 && (
              <Chip size="small" color="error" label={`${b.not_stopped} not stopped`} />
            )}
          </Fact>
          <Fact label="Backchannels">
            <Text>{caller.backchannels.count}</Text>
            {caller.backchannels.count > 0 && (
              <Chip
                size="small"
                variant="outlined"
                color={caller.backchannels.false_yields ? 'warning' : 'success'}
                label={plural(caller.backchannels.false_yields, 'false yield')}
              />
            )}
          </Fact>
          <Fact label="Silences">
            {caller.silences.length === 0 && <Text>none</Text>}
            {caller.silences.map((s, i) => (
              <Chip
                key={i}
                size="small"
                variant="outlined"
                color={s.reprompt_ms === null ? 'warning' : 'default'}
                label={`${seconds(s.ms)} at ${seconds(s.at_ms)}: ${
                  s.reprompt_ms === null ? 'no re-prompt' : `re-prompted after ${s.reprompt_ms} ms`
                }`}
              />
            ))}
          </Fact>
          <Fact label="Digits sent">
            {caller.dtmf.length === 0 && <Text>none</Text>}
            {caller.dtmf.map((d, i) => (
              <Chip
                key={i}
                size="small"
                variant="outlined"
                label={`${d.digits} at ${seconds(d.at_ms)} (${d.via === 'tones' ? 'as tones' : 'as events'})`}
              />
            ))}
          </Fact>
          <Fact label="Hung up">
            <Text>{caller.hung_up ? 'yes, the caller hung up' : 'no'}</Text>
          </Fact>
          <RecognitionFact asr={caller.asr} />
        </Box>
      </CardContent>
    </Card>
  );
}

/** A caller turn's act (barge-in, backchannel, keypad) and digits, as chips beside its time. */
export function TurnActChips({ turn }: { turn: Turn }) {
  const labels = [
    turn.act && turn.act !== 'dtmf' ? ACTS[turn.act] : null,
    turn.dtmf ? `${ACTS.dtmf} ${turn.dtmf}` : turn.act === 'dtmf' ? ACTS.dtmf : null,
  ].filter((l): l is string => l !== null);
  return labels.map((label) => (
    <Chip
      key={label}
      size="small"
      variant="outlined"
      label={label}
      sx={{ height: 20, ml: 1, color: 'inherit', borderColor: 'currentColor' }}
    />
  ));
}

/** What the agent's recognition heard of a caller turn, with its word error rate. */
export function HeardText({ turn }: { turn: Turn }) {
  if (turn.heard === undefined) return null;
  return (
    <Typography variant="body2" sx={{ opacity: 0.8 }}>
      Agent heard: “{turn.heard}”
      {turn.wer !== undefined && turn.wer !== null && ` · WER ${fmtWer(turn.wer)}`}
    </Typography>
  );
}

/** Audio calls by the caller's noise and line: where the agent is slow, or mishears. */
export function ConditionsTable({ rows }: { rows: ConditionRow[] }) {
  if (!rows.length) return null;
  return (
    <Box sx={{ my: 2 }}>
      <Typography variant="subtitle1" component="h2">
        By noise and line
      </Typography>
      <Table size="small" aria-label="By noise and line" sx={{ maxWidth: 760 }}>
        <TableHead>
          <TableRow>
            <TableCell>Noise</TableCell>
            <TableCell>Line</TableCell>
            <TableCell align="right">Calls</TableCell>
            <TableCell align="right">Latency p50</TableCell>
            <TableCell align="right">Latency p90</TableCell>
            <TableCell align="right">WER</TableCell>
            <TableCell align="right">Misheard</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={`${r.noise}|${r.line}`}>
              <TableCell>{words(r.noise)}</TableCell>
              <TableCell>{r.line}</TableCell>
              <TableCell align="right">{r.calls}</TableCell>
              <TableCell align="right">{fmtNum(r.response_latency_ms.p50, ' ms')}</TableCell>
              <TableCell align="right">{fmtNum(r.response_latency_ms.p90, ' ms')}</TableCell>
              <TableCell align="right">{fmtWer(r.wer)}</TableCell>
              <TableCell align="right">{r.misheard}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
