/**
 * MODEL, not a measurement: the drain of a month-end from its measured release side. Given when each message
 * reached the queue (the release run's enqueues, ticks placed on the schedule) and a drain rate (the drain run's
 * measured rate), the workers send at that rate whenever the queue holds a message. Answers when the last is
 * sent, whether the queue ever ran dry before the end (starved), and the longest wait of a message in the queue
 * (against SQS FIFO's 5-minute deduplication window, after which a tick's copy of a queued message is not dropped).
 */
export interface DrainModel {
  readonly drainSeconds: number;
  readonly perSecond: number;
  /** Seconds the workers waited on an empty queue between the first enqueue and the last send. */
  readonly starvedSeconds: number;
  readonly peakQueueDepth: number;
  readonly longestWaitSeconds: number;
  /** Messages that waited in the queue longer than `windowSeconds`: a tick's copy of one is not dropped. */
  readonly queuedPastWindow: number;
}

/** `arrivals`: [seconds after D, messages] in time order, new messages only; `rate`: sends per second. */
export function modelDrain(
  arrivals: readonly (readonly [number, number])[],
  rate: number,
  windowSeconds = Number.POSITIVE_INFINITY,
): DrainModel {
  let clock = 0;
  let queued = 0;
  let starved = 0;
  let peak = 0;
  let longestWait = 0;
  let started = false;
  let pastWindow = 0;
  const total = arrivals.reduce((sum, [, count]) => sum + count, 0);
  for (const [at, count] of arrivals) {
    if (at > clock) {
      // Until this arrival the workers send what is queued; once it is empty they wait (after the first arrival).
      const emptyAt = clock + queued / rate;
      if (emptyAt < at && started) starved += at - emptyAt;
      queued = Math.max(0, queued - (at - clock) * rate);
      clock = at;
    }
    // The i-th message of this arrival waits (queued + i) / rate.
    pastWindow += Math.max(0, Math.min(count, queued + count - windowSeconds * rate));
    queued += count;
    started = true;
    peak = Math.max(peak, queued);
    // FIFO: the last message of this arrival leaves once everything ahead of it and itself are sent.
    longestWait = Math.max(longestWait, queued / rate);
  }
  const drainSeconds = clock + queued / rate;
  return {
    drainSeconds,
    perSecond: total / drainSeconds,
    starvedSeconds: starved,
    peakQueueDepth: peak,
    longestWaitSeconds: longestWait,
    queuedPastWindow: Math.round(pastWindow),
  };
}
