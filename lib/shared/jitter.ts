/** Waits a random time up to `capMs`, growing with the attempt: spreads out writers that just collided. */
export function jitteredPause(attempt: number, capMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(capMs, 10 * 2 ** attempt)));
}
