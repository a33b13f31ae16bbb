/**
 * The next point of a fixed grid of `periodMs` after `now`: polls on the same grid from
 * several deliveries meet at the same instants and collapse into one chain.
 */
export function nextGridPoint(now: number, periodMs: number): number {
  return (Math.floor(now / periodMs) + 1) * periodMs;
}
