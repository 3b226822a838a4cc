import { describe, expect, it } from 'vitest';
import { withStoredIds } from '../../renderer/src/ui/metricIds.js';

/**
 * The scorecard editor shows metrics without ids; saving must send the stored ids back, or every
 * edit makes every metric new and its labels and calibration are lost (#37).
 */
describe('withStoredIds', () => {
  const stored = [
    { id: 'met_a', name: 'Polite' },
    { id: 'met_b', name: 'Status' },
    { id: 'met_c', name: 'Polite' },
  ];

  it('gives each metric the id of the stored one of its name, each id once, in order', () => {
    const sent = withStoredIds(
      [
        { name: 'Status' },
        { name: 'Polite', config: { x: 1 } },
        { name: 'Polite' },
        { name: 'Polite' },
      ],
      stored,
    );
    expect(sent).toEqual([
      { id: 'met_b', name: 'Status' },
      { id: 'met_a', name: 'Polite', config: { x: 1 } },
      { id: 'met_c', name: 'Polite' },
      { name: 'Polite' },
    ]);
  });

  it('leaves alone a renamed metric, one that has an id, and what is not a metric', () => {
    expect(withStoredIds([{ name: 'Kind' }, { id: 'met_z', name: 'Status' }, 3], stored)).toEqual([
      { name: 'Kind' },
      { id: 'met_z', name: 'Status' },
      3,
    ]);
  });
});
