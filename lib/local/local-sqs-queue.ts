import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Logger } from '../shared/logger.js';

/** A message as sent: FIFO queues need a group and a deduplication id. */
export interface LocalQueueEntry {
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  /** String message attributes by name (the correlation id, the traceparent), delivered as SQS delivers them. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The `AWSTraceHeader` system attribute, delivered among the record's attributes. */
  readonly traceHeader?: string;
}

/** How the stand-in behaves: the values the stack gives the queue and its event source. */
export interface LocalQueueOptions {
  readonly name: string;
  readonly fifo: boolean;
  /** How long a received message stays invisible; it is delivered again after that unless deleted. */
  readonly visibilityTimeoutMs: number;
  /** Deliveries before a message moves to the dead letters (the redrive policy). */
  readonly maxReceiveCount: number;
  /** Most messages per invocation (the event source's batch size). */
  readonly batchSize: number;
  /** Most invocations at once (the event source's maximum concurrency). */
  readonly maxConcurrency: number;
  /** The consumer's timeout: an invocation running longer counts as crashed, and its answer is ignored. */
  readonly functionTimeoutMs: number;
  /** SQS FIFO drops a deduplication id seen this recently (5 minutes). */
  readonly deduplicationWindowMs?: number;
  /** The consumer, called as Lambda calls a function with an SQS event source. */
  readonly consumer: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;
  readonly logger: Logger;
  /** Clock for visibility, deduplication and the consumer's remaining time; `Date.now` by default. */
  readonly now?: () => number;
  /**
   * Resolves once `ms` have passed, unless `signal` aborts first: how an invocation that never returns is
   * noticed (a real timer by default; tests also see an overrun on `now` when the invocation returns).
   */
  readonly timeout?: (ms: number, signal: AbortSignal) => Promise<void>;
}

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string | undefined;
  readonly attributes: Readonly<Record<string, string>> | undefined;
  readonly traceHeader: string | undefined;
  readonly sentAt: number;
  receiveCount: number;
  visibleAt: number;
  receiptHandle: string | undefined;
}

export interface LocalQueueStats {
  /** Messages waiting, visible now. */
  readonly visible: number;
  /** Messages received and neither deleted nor visible again yet. */
  readonly inFlight: number;
  readonly deadLetters: number;
  readonly invocations: number;
  /** Most invocations that ran at once so far. */
  readonly peakConcurrency: number;
}

const FIVE_MINUTES_MS = 5 * 60_000;

/**
 * A local stand-in for an SQS queue with a Lambda event source, keeping the semantics the workers rely on:
 * a received message is invisible for the visibility timeout and delivered again after it unless the
 * invocation deletes it (a success, or a partial batch response that does not name it); an invocation that
 * throws, or runs past the function timeout, deletes nothing; a message received `maxReceiveCount` times moves
 * to the dead letters; a FIFO queue drops a deduplication id seen within five minutes (per message group, as
 * in high-throughput mode) and never hands out a message of a group with one in flight. At most
 * `maxConcurrency` invocations of at most `batchSize` messages run at once.
 *
 * `pump()` starts what can start now; `start(intervalMs)` pumps on a timer (as Lambda's pollers do) and after
 * every send and every invocation; `idle()` resolves when no invocation is running.
 *
 * @example
 * const queue = new LocalSqsQueue({ name: 'submissions.fifo', fifo: true, ..., consumer: handler });
 * queue.send([{ body, groupId: payoutId, deduplicationId: `${payoutId}:3` }]);
 */
export class LocalSqsQueue {
  readonly options: LocalQueueOptions;
  readonly #messages: StoredMessage[] = [];
  readonly #deadLetters: StoredMessage[] = [];
  readonly #seenDeduplicationIds = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #now: () => number;
  #invocations = 0;
  #peak = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: LocalQueueOptions) {
    this.options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Accepts messages (a FIFO duplicate is accepted and dropped, as SQS does) and pumps. Returns their ids. */
  send(entries: readonly LocalQueueEntry[]): string[] {
    const now = this.#now();
    const ids = entries.map((entry) => {
      if (this.options.fifo && (!entry.groupId || !entry.deduplicationId)) {
        throw new LocalQueueError('a FIFO queue needs MessageGroupId and MessageDeduplicationId');
      }
      const messageId = randomUUID();
      if (this.options.fifo) {
        const key = `${entry.groupId}\u0000${entry.deduplicationId}`;
        const seen = this.#seenDeduplicationIds.get(key);
        const window = this.options.deduplicationWindowMs ?? FIVE_MINUTES_MS;
        if (seen !== undefined && now - seen < window) return messageId;
        this.#seenDeduplicationIds.set(key, now);
      }
      this.#messages.push({
        messageId,
        body: entry.body,
        groupId: entry.groupId,
        attributes: entry.attributes,
        traceHeader: entry.traceHeader,
        sentAt: now,
        receiveCount: 0,
        visibleAt: now,
        receiptHandle: undefined,
      });
      return messageId;
    });
    this.pump();
    return ids;
  }

  /**
   * ChangeMessageVisibility: the message received under `receiptHandle` becomes visible `seconds` from now (0: at
   * once). False, as SQS answers ReceiptHandleIsInvalid, when no message holds that handle (deleted, or received
   * again since under a new one).
   */
  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const message = this.#messages.find((one) => one.receiptHandle === receiptHandle);
    if (!message) return false;
    message.visibleAt = this.#now() + seconds * 1000;
    return true;
  }

  /** Starts as many invocations as the concurrency allows with the messages visible now. */
  pump(): void {
    while (!this.#stopped && this.#running.size < this.options.maxConcurrency) {
      const batch = this.#receive();
      if (batch.length === 0) return;
      const invocation = this.#invoke(batch).finally(() => {
        this.#running.delete(invocation);
        this.pump();
      });
      this.#running.add(invocation);
      this.#peak = Math.max(this.#peak, this.#running.size);
    }
  }

  /** Pumps every `intervalMs` too, so messages whose visibility timeout ended are delivered again. */
  start(intervalMs: number): void {
    this.#timer = setInterval(() => this.pump(), intervalMs);
    this.#timer.unref();
  }

  /** Stops delivering and waits for the invocations under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.idle();
  }

  /** Resolves when no invocation is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  stats(): LocalQueueStats {
    const now = this.#now();
    return {
      visible: this.#messages.filter((message) => message.visibleAt <= now).length,
      inFlight: this.#messages.filter((message) => message.visibleAt > now).length,
      deadLetters: this.#deadLetters.length,
      invocations: this.#invocations,
      peakConcurrency: this.#peak,
    };
  }

  /** The bodies moved to the dead letters, oldest first. */
  deadLetterBodies(): string[] {
    return this.#deadLetters.map((message) => message.body);
  }

  #receive(): StoredMessage[] {
    const now = this.#now();
    // A FIFO group with a message in flight hands out nothing more until that message is deleted or visible.
    const busyGroups = new Set(
      this.#messages
        .filter((message) => message.visibleAt > now && message.groupId !== undefined)
        .map((message) => message.groupId),
    );
    const batch: StoredMessage[] = [];
    for (const message of [...this.#messages]) {
      if (batch.length >= this.options.batchSize) break;
      if (message.visibleAt > now) continue;
      if (this.options.fifo && busyGroups.has(message.groupId)) continue;
      if (message.receiveCount >= this.options.maxReceiveCount) {
        // The redrive policy: received maxReceiveCount times and never deleted.
        this.#remove(message);
        this.#deadLetters.push(message);
        this.options.logger.error('local queue: message moved to the dead letters', {
          queue: this.options.name,
          messageId: message.messageId,
          receiveCount: message.receiveCount,
        });
        continue;
      }
      message.receiveCount++;
      message.visibleAt = now + this.options.visibilityTimeoutMs;
      message.receiptHandle = randomUUID();
      if (message.groupId !== undefined) busyGroups.add(message.groupId);
      batch.push(message);
    }
    return batch;
  }

  async #invoke(batch: StoredMessage[]): Promise<void> {
    this.#invocations++;
    const started = this.#now();
    const deadline = started + this.options.functionTimeoutMs;
    const handles = new Map(batch.map((message) => [message, message.receiptHandle]));
    const event: SQSEvent = { Records: batch.map((message) => this.#record(message)) };
    const timeout = this.options.timeout ?? realTimeout;
    const timer = new AbortController();
    let outcome: SQSBatchResponse | undefined | typeof TIMED_OUT;
    try {
      outcome = await Promise.race([
        this.options.consumer(event, lambdaContext(this.options.name, deadline, this.#now)),
        timeout(this.options.functionTimeoutMs, timer.signal).then(() => TIMED_OUT),
      ]);
    } catch (error) {
      // A failed invocation deletes nothing: the whole batch is delivered again after the visibility timeout.
      this.options.logger.error('local queue: invocation failed; its batch will be delivered again', {
        queue: this.options.name,
        messages: batch.length,
        error: error instanceof Error ? error.name : String(error),
      });
      return;
    } finally {
      timer.abort();
    }
    if (outcome === TIMED_OUT || this.#now() > deadline) {
      this.options.logger.error('local queue: invocation timed out; its batch will be delivered again', {
        queue: this.options.name,
        messages: batch.length,
      });
      return;
    }
    const answer: SQSBatchResponse | undefined =
      outcome && 'batchItemFailures' in outcome ? outcome : undefined;
    const failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    for (const message of batch) {
      // A message received again meanwhile (its visibility ran out) has a new receipt handle: not ours to delete.
      if (failed.has(message.messageId) || message.receiptHandle !== handles.get(message)) continue;
      this.#remove(message);
    }
  }

  #remove(message: StoredMessage): void {
    const index = this.#messages.indexOf(message);
    if (index >= 0) this.#messages.splice(index, 1);
  }

  #record(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(this.#now()),
        ...(message.groupId !== undefined && { MessageGroupId: message.groupId }),
        ...(message.traceHeader !== undefined && { AWSTraceHeader: message.traceHeader }),
      },
      messageAttributes: Object.fromEntries(
        Object.entries(message.attributes ?? {}).map(([name, stringValue]) => [
          name,
          { dataType: 'String', stringValue, stringListValues: [], binaryListValues: [] },
        ]),
      ),
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.options.name}`,
      awsRegion: 'local',
    };
  }
}

/** The stand-in refused a message, as SQS would. */
export class LocalQueueError extends Error {
  override readonly name = 'LocalQueueError';
  readonly code = 'LOCAL_QUEUE_INVALID';
}

const TIMED_OUT = { timedOut: true } as const;

/** Resolves after `ms`; never, once `signal` aborts (the invocation returned first). */
function realTimeout(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
}

/** The parts of Lambda's context object the handlers use, with the remaining time on the queue's clock. */
function lambdaContext(name: string, deadline: number, now: () => number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${name}-consumer`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${name}-consumer`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: 'local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
