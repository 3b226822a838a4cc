import type { EXECUTION_STATUSES } from '../generated/catalogue-enums';

export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/**
 * The statuses an execution leaves again: every other status of the catalogue's is final (nothing
 * runs for it any more). Typed by the catalogue's list, so a status renamed there fails here.
 */
const UNDER_WAY: readonly ExecutionStatus[] = ['queued', 'running'];

/** Whether an execution has ended (screens stop polling it and stop offering its cancel). */
export const executionEnded = (status: ExecutionStatus): boolean => !UNDER_WAY.includes(status);
