import type { MetricConfigOf } from '../domain/metrics.js';
import type { MetricResult } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';
import { notApplicable, unevaluated, verdict } from './metric-results.js';
import type { Conversation } from './scoring-types.js';

/*
 * A metric the simulation cannot measure (an audio figure in a text run) is not applicable (see
 * notApplicable): left out of the score and the verdict, so one scorecard serves text and audio
 * runs, and imported calls, alike.
 */

const TEXT_RUN = 'only audio simulations measure this, and this one ran in text mode.';

/** Figures only an audio call has: latency from the audio, first sound, talking over the caller. */
export function audioMetric(m: Metric, c: Conversation): MetricResult {
  const a = c.audio;
  if (!a) return notApplicable(m, TEXT_RUN);
  const within = (figure: number | null, max: number, what: string) =>
    figure === null
      ? unevaluated(m, `No ${what} was measured (the agent never answered).`, `no ${what}`)
      : verdict(m, figure <= max, `The ${what} was ${figure} ms (at most ${max}).`);
  if (m.type === 'max_response_latency_ms') {
    const cfg = m.config as MetricConfigOf<'max_response_latency_ms'>;
    const on = cfg.on ?? 'p90';
    return within(a.response_latency_ms[on], cfg.max, `${on} response latency`);
  }
  if (m.type === 'max_time_to_first_audio_ms') {
    const cfg = m.config as MetricConfigOf<'max_time_to_first_audio_ms'>;
    return within(a.time_to_first_audio_ms, cfg.max, 'time to first audio');
  }
  const cfg = m.config as MetricConfigOf<'max_talk_over_ms'>;
  return verdict(
    m,
    a.talk_over.total_ms <= cfg.max,
    `The agent talked over the caller ${a.talk_over.count} time(s), ${a.talk_over.total_ms} ms in all (at most ${cfg.max}).`,
  );
}

/** Figures of how the agent took a realistic caller: barge-ins, backchannels, silences, recognition. */
export function callerMetric(m: Metric, c: Conversation): MetricResult {
  if (!c.audio) return notApplicable(m, TEXT_RUN);
  const a = c.audio.caller;
  if (!a)
    return unevaluated(
      m,
      'This call kept no caller figures (it was placed before they were measured).',
      'no caller figures',
    );
  const none = (what: string) => unevaluated(m, `The caller never ${what} on this call.`, 'none');
  switch (m.type) {
    case 'max_barge_in_stop_ms': {
      const cfg = m.config as MetricConfigOf<'max_barge_in_stop_ms'>;
      const on = cfg.on ?? 'max';
      const ms = a.barge_ins.stop_ms[on];
      if (ms === null) return none('barged in while the agent spoke');
      return verdict(
        m,
        ms <= cfg.max,
        `After ${a.barge_ins.count} barge-in(s), the agent's audio stopped in ${ms} ms (${on}; at most ${cfg.max}).`,
      );
    }
    case 'max_false_yields': {
      const cfg = m.config as MetricConfigOf<'max_false_yields'>;
      // A call with no backchannel has no false yield to count: judged, not an error, which
      // would fail the whole simulation for what its persona happened not to do.
      if (!a.backchannels.count)
        return verdict(
          m,
          true,
          `No backchannel came up on this call, so the agent had none to stop for: 0 false yields (at most ${cfg.max}).`,
        );
      const n = a.backchannels.false_yields;
      return verdict(
        m,
        n <= cfg.max,
        `The agent stopped for ${n} of ${a.backchannels.count} backchannel(s) (at most ${cfg.max}).`,
      );
    }
    case 'reprompts_after_silence':
      return repromptVerdict(m, a.silences);
    default: {
      const cfg = m.config as MetricConfigOf<'max_asr_wer'>;
      if (!a.asr || a.asr.wer === null)
        return unevaluated(
          m,
          "The provider reported nothing of what its recognition heard (Vapi's call record and ElevenLabs' user_transcript do).",
          'no recognition reported',
        );
      const missed = a.asr.misheard.map(
        (x) => `"${x.said}" as ${x.heard === null ? 'nothing' : `"${x.heard}"`}`,
      );
      return verdict(
        m,
        a.asr.wer <= cfg.max,
        `The agent's recognition had a word error rate of ${a.asr.wer} over ${a.asr.words} words (at most ${cfg.max})${missed.length ? `; misheard ${missed.join(', ')}` : ''}.`,
      );
    }
  }
}

function repromptVerdict(
  m: Metric,
  silences: NonNullable<NonNullable<Conversation['audio']>['caller']>['silences'],
): MetricResult {
  const cfg = m.config as MetricConfigOf<'reprompts_after_silence'>;
  const within = cfg.withinMs ?? 10_000;
  if (!silences.length) return unevaluated(m, 'The caller never kept silent on this call.', 'none');
  const late = silences.filter((s) => s.reprompt_ms === null || s.reprompt_ms > within);
  const said = silences.map((s) =>
    s.reprompt_ms === null ? `no re-prompt in ${s.ms} ms` : `re-prompted after ${s.reprompt_ms} ms`,
  );
  return verdict(
    m,
    late.length === 0,
    `In ${silences.length} silence(s) the agent ${said.join('; ')} (within ${within} ms wanted).`,
  );
}
