import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricsSink } from '../payouts/engine/context.js';
import type { Logger } from './logger.js';

/** Structured JSON logs in Lambda (Powertools), behind the project's Logger interface. */
export function powertoolsLogger(
  serviceName = 'payouts',
): Logger & { appendKeys(keys: Record<string, unknown>): void } {
  const logger = new PowertoolsLogger({ serviceName });
  return {
    debug: (message, fields) => logger.debug(message, fields ?? {}),
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
    appendKeys: (keys) => logger.appendKeys(keys),
  };
}

/**
 * CloudWatch metrics through the embedded metric format. Handlers call `flush()` at the end of each
 * invocation so the metrics of one invocation are written in one log line.
 */
export class PowertoolsMetricsSink implements MetricsSink {
  readonly #metrics: Metrics;

  constructor(namespace = 'Payouts', serviceName = 'payouts') {
    this.#metrics = new Metrics({ namespace, serviceName });
  }

  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    this.#withDimensions(dimensions, (metrics) => metrics.addMetric(name, MetricUnit.Count, value));
  }

  timing(name: string, milliseconds: number, dimensions?: Record<string, string>): void {
    this.#withDimensions(dimensions, (metrics) =>
      metrics.addMetric(name, MetricUnit.Milliseconds, milliseconds),
    );
  }

  flush(): void {
    this.#metrics.publishStoredMetrics();
  }

  #withDimensions(dimensions: Record<string, string> | undefined, add: (metrics: Metrics) => void): void {
    if (!dimensions || Object.keys(dimensions).length === 0) {
      add(this.#metrics);
      return;
    }
    // A single metric with its own dimensions goes out as its own EMF line.
    const single = this.#metrics.singleMetric();
    for (const [key, value] of Object.entries(dimensions)) single.addDimension(key, value);
    add(single);
  }
}
