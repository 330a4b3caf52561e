const DAY_MS = 86_400_000;

/** Start of the UTC day of `d`, or of the next day when `d` is not a day start. */
export function ceilUtcDay(d: Date): Date {
  const floor = Math.floor(d.getTime() / DAY_MS) * DAY_MS;
  return new Date(floor === d.getTime() ? floor : floor + DAY_MS);
}

/** Start of the UTC day of `d`. */
export function floorUtcDay(d: Date): Date {
  return new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
}
