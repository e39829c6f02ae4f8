import { describe, expect, it } from 'vitest';
import { EmfMetricsSink } from '../../lib/shared/emf-metrics.js';
import { lambdaLogger } from '../../lib/shared/lambda-logger.js';

const NOW = Date.parse('2026-11-23T10:00:00.000Z');

function captured() {
  const lines: string[] = [];
  return {
    lines,
    write: (line: string) => lines.push(line),
    parsed: () => lines.map((line) => JSON.parse(line)),
  };
}

describe('lambdaLogger', () => {
  it("writes one JSON line with Powertools' fields, the appended keys and the entry's fields", () => {
    const out = captured();
    const logger = lambdaLogger({
      service: 'payouts',
      write: out.write,
      now: () => new Date(NOW),
      env: { _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' },
    });
    logger.appendKeys({ stage: 'dev' });
    logger.info('sweep finished', { released: 2 });
    expect(out.lines[0]?.endsWith('\n')).toBe(true);
    expect(out.parsed()).toEqual([
      {
        level: 'INFO',
        message: 'sweep finished',
        timestamp: '2026-11-23T10:00:00.000Z',
        service: 'payouts',
        sampling_rate: 0,
        xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
        stage: 'dev',
        released: 2,
      },
    ]);
  });

  it('drops entries below POWERTOOLS_LOG_LEVEL, then AWS_LAMBDA_LOG_LEVEL, and defaults to INFO', () => {
    const levels = (env: Record<string, string>) => {
      const out = captured();
      const logger = lambdaLogger({ service: 's', write: out.write, env });
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      logger.error('e');
      return out.parsed().map((entry) => entry.level);
    };
    expect(levels({})).toEqual(['INFO', 'WARN', 'ERROR']);
    expect(levels({ AWS_LAMBDA_LOG_LEVEL: 'DEBUG' })).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR']);
    expect(levels({ POWERTOOLS_LOG_LEVEL: 'error', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' })).toEqual(['ERROR']);
  });

  it('writes an Error in a field as its name, message and code, not as {}', () => {
    const out = captured();
    const failure = Object.assign(new Error('provider down'), { code: 'PROVIDER_UNAVAILABLE' });
    lambdaLogger({ service: 's', write: out.write, env: {} }).error('failed', { error: failure });
    expect(out.parsed()[0].error).toMatchObject({
      name: 'Error',
      message: 'provider down',
      code: 'PROVIDER_UNAVAILABLE',
    });
  });
});

describe('EmfMetricsSink', () => {
  it('gathers undimensioned metrics into one EMF line per flush, dimensioned by service, values of one name as a list', () => {
    const out = captured();
    const metrics = new EmfMetricsSink({
      namespace: 'Payouts',
      service: 'payouts',
      write: out.write,
      now: () => NOW,
    });
    metrics.count('PayoutMissed');
    metrics.count('PayoutMissed', 2);
    metrics.timing('SweepDuration', 120);
    expect(out.lines).toEqual([]);
    metrics.flush();
    expect(out.parsed()).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: 'Payouts',
              Dimensions: [['service']],
              Metrics: [
                { Name: 'PayoutMissed', Unit: 'Count' },
                { Name: 'SweepDuration', Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        service: 'payouts',
        PayoutMissed: [1, 2],
        SweepDuration: 120,
      },
    ]);
    metrics.flush();
    expect(out.lines).toHaveLength(1);
  });

  it('writes a dimensioned metric at once on its own line, with service and its dimensions as one set', () => {
    const out = captured();
    const metrics = new EmfMetricsSink({
      namespace: 'Payouts',
      service: 'payouts',
      write: out.write,
      now: () => NOW,
    });
    metrics.timing('ProviderCallLatency', 85, { outcome: 'accepted' });
    expect(out.parsed()).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: 'Payouts',
              Dimensions: [['service', 'outcome']],
              Metrics: [{ Name: 'ProviderCallLatency', Unit: 'Milliseconds' }],
            },
          ],
        },
        service: 'payouts',
        outcome: 'accepted',
        ProviderCallLatency: 85,
      },
    ]);
  });

  it('writes at once when 100 metrics are gathered, the most one EMF object may hold', () => {
    const out = captured();
    const metrics = new EmfMetricsSink({
      namespace: 'Payouts',
      service: 'payouts',
      write: out.write,
      now: () => NOW,
    });
    for (let i = 0; i < 100; i++) metrics.count(`M${i}`);
    expect(out.lines).toHaveLength(1);
    expect(out.parsed()[0]._aws.CloudWatchMetrics[0].Metrics).toHaveLength(100);
  });
});
