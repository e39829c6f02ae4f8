import type { MetricsSink } from './metrics.js';

type Unit = 'Count' | 'Milliseconds';

/** CloudWatch accepts at most 100 metrics in one EMF object; a full buffer is written at once. */
const MAX_METRICS_PER_LINE = 100;

export interface EmfMetricsOptions {
  readonly namespace: string;
  /** Added as the `service` dimension to every metric, as Powertools does (infra/constructs/monitoring.ts reads it). */
  readonly service: string;
  readonly write?: (line: string) => void;
  readonly now?: () => number;
}

/**
 * CloudWatch metrics through the embedded metric format (EMF), in the shape the Powertools metrics utility
 * writes: metrics without dimensions of their own are gathered and written as one line by `flush()` (values of
 * the same name as a list), dimensioned by `service`; a metric with dimensions is written at once on its own
 * line, dimensioned by `service` and its own. Handlers call `flush()` at the end of each invocation.
 *
 * @example
 * const metrics = new EmfMetricsSink({ namespace: 'Payouts', service: 'payouts' });
 * metrics.count('PayoutCreated', 1, { type: 'bank_transfer' });
 * metrics.flush();
 */
export class EmfMetricsSink implements MetricsSink {
  readonly #options: EmfMetricsOptions;
  readonly #write: (line: string) => void;
  readonly #now: () => number;
  readonly #stored = new Map<string, { unit: Unit; values: number[] }>();

  constructor(options: EmfMetricsOptions) {
    this.#options = options;
    this.#write = options.write ?? ((line: string) => process.stdout.write(line));
    this.#now = options.now ?? Date.now;
  }

  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    this.#add(name, 'Count', value, dimensions);
  }

  timing(name: string, milliseconds: number, dimensions?: Record<string, string>): void {
    this.#add(name, 'Milliseconds', milliseconds, dimensions);
  }

  /** Writes the gathered metrics as one EMF line; nothing when none were gathered. */
  flush(): void {
    if (this.#stored.size === 0) return;
    const metrics = [...this.#stored].map(([name, { unit, values }]) => ({
      name,
      unit,
      value: values.length === 1 ? (values[0] ?? 0) : values,
    }));
    this.#stored.clear();
    this.#emit(metrics, {});
  }

  #add(name: string, unit: Unit, value: number, dimensions: Record<string, string> | undefined): void {
    if (dimensions && Object.keys(dimensions).length > 0) {
      this.#emit([{ name, unit, value }], dimensions);
      return;
    }
    const stored = this.#stored.get(name);
    if (stored) stored.values.push(value);
    else this.#stored.set(name, { unit, values: [value] });
    if (this.#stored.size >= MAX_METRICS_PER_LINE) this.flush();
  }

  #emit(
    metrics: readonly { name: string; unit: Unit; value: number | number[] }[],
    dimensions: Record<string, string>,
  ): void {
    const allDimensions = { service: this.#options.service, ...dimensions };
    const line = {
      _aws: {
        Timestamp: this.#now(),
        CloudWatchMetrics: [
          {
            Namespace: this.#options.namespace,
            Dimensions: [Object.keys(allDimensions)],
            Metrics: metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })),
          },
        ],
      },
      ...allDimensions,
      ...Object.fromEntries(metrics.map(({ name, value }) => [name, value])),
    };
    this.#write(`${JSON.stringify(line)}\n`);
  }
}
