import { Box, Chip, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import {
  BONFERRONI_HELP,
  VERDICT_COLORS,
  VERDICT_HELP,
  VERDICT_WORDS,
  percent,
  shortHash,
  type SideRateOf,
  type Verdict,
} from './comparisonWords';

/** A verdict as a chip, explained on hover and focus; `large` for the overall one. */
export function VerdictChip({ verdict, large = false }: { verdict: Verdict; large?: boolean }) {
  return (
    <Tooltip title={VERDICT_HELP[verdict]} describeChild>
      <Chip
        tabIndex={0}
        label={VERDICT_WORDS[verdict]}
        color={VERDICT_COLORS[verdict]}
        variant={verdict === 'insufficient_data' ? 'outlined' : 'filled'}
        data-verdict={verdict}
        size={large ? 'medium' : 'small'}
        sx={large ? { fontSize: 18, height: 40, px: 1.5, fontWeight: 600 } : undefined}
      />
    </Tooltip>
  );
}

/**
 * The verdict after the Bonferroni adjustment, shown only where it differs from the descriptive
 * one: the mark a gate reads.
 */
export function AdjustedMark({ verdict, adjusted }: { verdict: Verdict; adjusted: Verdict }) {
  if (verdict === adjusted) return null;
  return (
    <Tooltip title={BONFERRONI_HELP} describeChild>
      <Typography
        variant="caption"
        component="div"
        tabIndex={0}
        data-testid="adjusted-verdict"
        sx={{ textDecoration: 'underline dotted', cursor: 'help' }}
      >
        adjusted: {VERDICT_WORDS[adjusted].toLowerCase()}
      </Typography>
    </Tooltip>
  );
}

/** A hash cut short, the whole one on hover; a click copies it. */
export function HashText({ hash, what }: { hash: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard?.writeText(hash).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <Tooltip title={copied ? `Copied ${hash}` : `${what} ${hash} (click to copy)`} describeChild>
      <Box
        component="button"
        type="button"
        onClick={copy}
        onMouseLeave={() => setCopied(false)}
        sx={{
          font: 'inherit',
          fontFamily: 'monospace',
          color: 'inherit',
          bgcolor: 'transparent',
          border: 0,
          p: 0,
          cursor: 'copy',
          textDecoration: 'underline dotted',
        }}
      >
        {shortHash(hash)}
      </Box>
    </Tooltip>
  );
}

const BAR_COLORS = { baseline: 'text.secondary', candidate: 'primary.main' } as const;

function RateBar({ side, rate }: { side: 'baseline' | 'candidate'; rate: SideRateOf }) {
  const [low, high] = rate.interval ?? [0, 0];
  return (
    <Box sx={{ position: 'relative', height: 8, my: 0.5 }}>
      {rate.interval && (
        <Box
          sx={{
            position: 'absolute',
            left: `${low * 100}%`,
            width: `max(2px, ${(high - low) * 100}%)`,
            top: 0,
            bottom: 0,
            borderRadius: 1,
            bgcolor: BAR_COLORS[side],
            opacity: side === 'baseline' ? 0.6 : 0.9,
          }}
        />
      )}
      {rate.pass_rate !== null && (
        <Box
          sx={{
            position: 'absolute',
            left: `calc(${rate.pass_rate * 100}% - 1px)`,
            width: 3,
            top: -2,
            bottom: -2,
            bgcolor: 'text.primary',
          }}
        />
      )}
    </Box>
  );
}

const rateWords = (side: string, rate: SideRateOf) =>
  rate.pass_rate === null
    ? `${side}: no outcomes`
    : `${side} ${percent(rate.pass_rate)} (${rate.passed} of ${rate.total}, 95% CI ${percent(
        rate.interval?.[0],
      )} to ${percent(rate.interval?.[1])})`;

/**
 * Both sides' pass rates with their 95% intervals, drawn on one 0–100% axis (the same in every
 * row, so rows compare at a glance): baseline above in grey, candidate below in blue.
 */
export function IntervalBars({
  baseline,
  candidate,
}: {
  baseline: SideRateOf;
  candidate: SideRateOf;
}) {
  const label = `${rateWords('Baseline', baseline)}; ${rateWords('candidate', candidate)}`;
  return (
    <Tooltip title={label} describeChild>
      <Box
        role="img"
        aria-label={label}
        tabIndex={0}
        data-testid="interval-bars"
        sx={{
          minWidth: 160,
          px: 0.5,
          borderLeft: 1,
          borderRight: 1,
          borderColor: 'divider',
          backgroundImage: (t) =>
            `linear-gradient(to right, transparent calc(50% - 0.5px), ${t.palette.divider} calc(50% - 0.5px), ${t.palette.divider} calc(50% + 0.5px), transparent calc(50% + 0.5px))`,
        }}
      >
        <RateBar side="baseline" rate={baseline} />
        <RateBar side="candidate" rate={candidate} />
      </Box>
    </Tooltip>
  );
}

/** The axis under the bars' column heading: 0%, 50%, 100%, and which bar is which. */
export function AxisLegend() {
  return (
    <Box sx={{ minWidth: 160 }}>
      <Box sx={{ display: 'flex', justifyContent: 'space-between' }}>
        <span>0%</span>
        <span>50%</span>
        <span>100%</span>
      </Box>
      <Typography variant="caption" component="div">
        grey: baseline · blue: candidate
      </Typography>
    </Box>
  );
}
