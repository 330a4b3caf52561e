/** The server clock as a dependency, so tests drive time (hint idle gate, daily allowance). */
export type Clock = () => Date;

/** The real clock. */
export const systemClock: Clock = () => new Date();
