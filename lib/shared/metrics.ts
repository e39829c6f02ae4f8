/** Counters and timings a room reports; CloudWatch EMF in Lambda (`emf-metrics.ts`), nothing or memory locally. */
export interface MetricsSink {
  count(name: string, value?: number, dimensions?: Record<string, string>): void;
  timing(name: string, milliseconds: number, dimensions?: Record<string, string>): void;
}

export const noMetrics: MetricsSink = { count() {}, timing() {} };
