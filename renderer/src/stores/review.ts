import { create } from 'zustand';
import { ApiError } from '../client';
import { client } from './session';
import {
  loadCalibration,
  loadReview,
  type ReviewScope,
  type Scorecard,
} from '../ui/review/reviewData';
import type { MetricCalibration, Review, ReviewItem, Verdict } from '../ui/review/reviewQueue';

/*
 * The review session: the queue loaded once, where the reviewer is in it, and the labels. A label
 * is saved in the background while the next item shows (one keypress per label): a failed save
 * is kept on its item, to be shown and redone, never lost silently.
 */

interface ReviewState {
  scope: ReviewScope | null;
  loading: boolean;
  error: unknown;
  scorecard: Scorecard | null;
  items: ReviewItem[];
  index: number;
  /** The latest label of each item's key. */
  labels: Record<string, Review>;
  /** Labels sent and not answered yet, by key. */
  saving: Record<string, Verdict>;
  /** Saves that failed, by key: the engine's words. */
  failures: Record<string, string>;
  calibration: MetricCalibration[];
  /** Labels saved since the screen opened. */
  savedNow: number;
  /** Loads the queue; `focus` (a label key) starts on that item, when it is in the queue. */
  open: (scope: ReviewScope, focus?: string) => Promise<void>;
  close: () => void;
  goTo: (index: number) => void;
  next: () => void;
  previous: () => void;
  label: (verdict: Verdict, note: string) => Promise<void>;
}

const without = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};
/** The engine's words, with the fields it names (a metric no longer on the scorecard, say). */
const messageOf = (e: unknown): string =>
  e instanceof ApiError && e.fields.length
    ? e.fields.map((f) => `${f.path}: ${f.message}`).join('; ')
    : e instanceof Error
      ? e.message
      : String(e);

const EMPTY = {
  scope: null,
  loading: false,
  error: null,
  scorecard: null,
  items: [],
  index: 0,
  labels: {},
  saving: {},
  failures: {},
  calibration: [],
  savedNow: 0,
};

// Answers of an older calibration read arriving late must not overwrite a newer one.
let calibrationReads = 0;

export const useReview = create<ReviewState>((set, get) => {
  const refreshCalibration = async (scope: ReviewScope) => {
    const read = ++calibrationReads;
    const calibration = await loadCalibration(scope).catch(() => null);
    if (calibration && read === calibrationReads && get().scope === scope) set({ calibration });
  };
  return {
    ...EMPTY,
    async open(scope, focus) {
      set({ ...EMPTY, scope, loading: true });
      try {
        const loaded = await loadReview(scope);
        if (get().scope !== scope) return;
        set({
          loading: false,
          scorecard: loaded.scorecard,
          items: loaded.items,
          index: Math.max(
            0,
            loaded.items.findIndex((i) => i.key === focus),
          ),
          labels: Object.fromEntries(loaded.labels),
          calibration: loaded.calibration,
        });
      } catch (error) {
        if (get().scope === scope) set({ loading: false, error });
      }
    },
    close: () => set(EMPTY),
    goTo: (index) => set((s) => ({ index: Math.max(0, Math.min(index, s.items.length - 1)) })),
    next: () => get().goTo(get().index + 1),
    previous: () => get().goTo(get().index - 1),
    async label(verdict, note) {
      const { items, index, scope } = get();
      const item = items[index];
      if (!item || !scope) return;
      set((s) => ({
        saving: { ...s.saving, [item.key]: verdict },
        failures: without(s.failures, item.key),
      }));
      get().next();
      try {
        const { review } = await client().invoke('reviews.create', {
          workspace_id: scope.workspaceId,
          target: item.target,
          metricId: item.result.metric_id,
          verdict,
          note: note.trim() || null,
        });
        if (get().scope !== scope) return;
        set((s) => ({
          labels: { ...s.labels, [item.key]: review },
          saving: without(s.saving, item.key),
          savedNow: s.savedNow + 1,
        }));
        void refreshCalibration(scope);
      } catch (e) {
        if (get().scope !== scope) return;
        set((s) => ({
          saving: without(s.saving, item.key),
          failures: { ...s.failures, [item.key]: messageOf(e) },
        }));
      }
    },
  };
});
