import type { Notification } from './channels.js';

export interface AlertFacts {
  alertId: string;
  name: string;
  severity: string;
  state: 'firing' | 'resolved' | 'test';
  /** What is measured, in words: "success_rate of tool crm". */
  subject: string;
  metric: string | null;
  operator: string | null;
  value: number | null;
  threshold: number | null;
  timeWindow: string | null;
  at: string;
  /** What the change is about beyond the value (a drift suite's worse scenarios and comparison). */
  detail?: { text: string; data: Record<string, unknown> };
}

const OPERATOR_WORDS: Record<string, string> = {
  less_than: 'below',
  less_than_or_equal: 'at or below',
  greater_than: 'above',
  greater_than_or_equal: 'at or above',
  equals: 'equal to',
};

/**
 * The same facts for every channel: which alert, what was measured against what, over which
 * window. No links: the app is local, and a link would lead nowhere for the reader.
 */
export function composeNotification(f: AlertFacts): Notification {
  const headline =
    f.state === 'test'
      ? `[Callbench] Test notification for "${f.name}"`
      : `[Callbench] ${f.state === 'firing' ? 'FIRING' : 'Resolved'} (${f.severity}): ${f.name}`;
  const measured = f.detail
    ? `${f.subject}: ${f.detail.text}`
    : f.value === null
      ? `${f.subject}`
      : `${f.subject} was ${f.value}${f.operator ? `, ${f.state === 'resolved' ? 'no longer ' : ''}${OPERATOR_WORDS[f.operator] ?? f.operator} the threshold of ${f.threshold}` : ''}`;
  const window = f.timeWindow ? ` over the last ${f.timeWindow}` : '';
  const text = [
    headline.replace('[Callbench] ', ''),
    '',
    f.state === 'test'
      ? `This is a test of the channels of alert "${f.name}". ${f.subject}.`
      : `${measured}${window}.`,
    '',
    `Alert: ${f.name} (${f.alertId}), severity ${f.severity}`,
    `At: ${f.at}`,
    'Open Callbench > Alerts to see its history.',
  ].join('\n');
  const chat =
    f.state === 'test'
      ? `:bell: *Test* of alert *${f.name}* (${f.severity}). ${f.subject}.`
      : `${f.state === 'firing' ? ':rotating_light: *FIRING*' : ':white_check_mark: *Resolved*'} *${f.name}* (${f.severity})\n${measured}${window}.\n_${f.at}_`;
  return {
    alertId: f.alertId,
    subject: headline,
    text,
    chat,
    data: { ...f, event: f.state === 'test' ? 'alert.test' : `alert.${f.state}` },
  };
}
