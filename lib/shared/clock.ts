/** The source of "now" for everything that decides by time, injectable so tests control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests move by hand. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: Date | string = '2026-01-05T09:00:00.000Z') {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(milliseconds: number): void {
    this.#now += milliseconds;
  }

  set(to: Date | string): void {
    this.#now = new Date(to).getTime();
  }
}
