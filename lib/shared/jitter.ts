/**
 * How much slower than real time the pauses run: 1 in every deployed function. The cap fleet simulation
 * (bench/cap-fleet-simulation.ts) runs its modelled DynamoDB k times slower than real, to show rates this machine
 * cannot drive; the writers' pauses belong to that modelled world and are stretched with it, or every retry would
 * land k times too soon, inside the very transaction it collided with.
 */
let dilation = 1;

/** Stretches every pause of this process by `k` (the simulation's time dilation); 1 restores real time. */
export function useTimeDilation(k: number): void {
  dilation = k;
}

/** Waits a random time up to `capMs`, growing with the attempt: spreads out writers that just collided. */
export function jitteredPause(attempt: number, capMs: number): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(resolve, dilation * Math.random() * Math.min(capMs, 10 * 2 ** attempt)),
  );
}
