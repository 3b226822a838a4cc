/**
 * A spend refused before it was made: a model call (or speech) its simulation's cost cap has no
 * budget left for. The conversation ends where it is, keeping what was said (conversation.ts);
 * the runner records the simulation as skipped (simulations/cost-guard.ts).
 */
export class SpendRefused extends Error {}
