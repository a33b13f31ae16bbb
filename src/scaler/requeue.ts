/**
 * When to send a delayed re-enqueue so that repeats collapse and none is lost.
 *
 * The queue sender collapses requests for the same target and due second, and a message is
 * visible no earlier than its delay. Two hazards follow: a request computed by a second
 * delivery a few ms later must land on the same second, and a request must never land on the
 * second of a message already consumed (it would be collapsed into it and lost). So every
 * re-enqueue is snapped to 1 ms past a whole second (ms of clock drift cannot move it to the
 * next one) and to a second later than any message that can have been delivered by `now`.
 */

/** The instant to aim a re-enqueue wanted at `wanted` (epoch ms), as of `now`. */
export function requeueInstant(wanted: number, now: number): number {
  const afterDelivered = Math.ceil(now / 1000) * 1000 + 1;
  const t = Math.max(wanted, afterDelivered);
  return Math.ceil((t - 1) / 1000) * 1000 + 1;
}

/**
 * The next point of a fixed grid of `periodMs` after `now`: polls on the same grid from
 * several deliveries meet at the same instants and collapse into one chain.
 */
export function nextGridPoint(now: number, periodMs: number): number {
  return (Math.floor(now / periodMs) + 1) * periodMs;
}
