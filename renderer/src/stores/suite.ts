import { create } from 'zustand';

/**
 * The workspace menu's suite dialogs (export, import), and how many imports were applied: the
 * app keys the screen on it, so that after an apply every screen reads its lists again. Secrets
 * typed into the import are never kept here (they live in the import dialog's state only).
 */
interface SuiteState {
  open: 'export' | 'import' | null;
  applied: number;
  show: (dialog: 'export' | 'import') => void;
  close: () => void;
  /** An import was applied: the screens start over with their data. */
  markApplied: () => void;
}

export const useSuite = create<SuiteState>((set) => ({
  open: null,
  applied: 0,
  show: (dialog) => set({ open: dialog }),
  close: () => set({ open: null }),
  markApplied: () => set((s) => ({ applied: s.applied + 1 })),
}));
