/** The one source of time, injected so that tests can move it instead of waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();
