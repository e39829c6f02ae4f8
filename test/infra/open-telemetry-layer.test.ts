import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import { HANDLERS } from '../../infra/handlers.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

const LAYER = 'arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-nodejs-arm64-ver-1-30-2:1';

function stackWith(openTelemetry: unknown) {
  const config = parseStageConfig('dev', {
    ...stageConfigFromCdkJson('dev'),
    ...(openTelemetry !== undefined && { openTelemetry }),
  });
  return new PayoutsStack(testApp(), 'Payouts-dev', { stage: 'dev', config });
}

/** Each deployed function's layers and exec wrapper, by handler name, as synthesised. */
function tracingOf(stack: PayoutsStack) {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<
    string,
    { Properties: { Layers?: string[]; Environment?: { Variables?: Record<string, unknown> } } }
  >;
  return new Map(
    [...stack.functions].map(([name, fn]) => {
      const id = Stack.of(stack).getLogicalId(fn.function.node.defaultChild as CfnElement);
      const props = resources[id]?.Properties;
      return [
        name,
        { layers: props?.Layers ?? [], wrapper: props?.Environment?.Variables?.AWS_LAMBDA_EXEC_WRAPPER },
      ];
    }),
  );
}

describe('the ADOT layer for the functions that make spans', () => {
  it('is given, with its wrapper, to every function that traces and to no other', () => {
    const tracing = tracingOf(stackWith({ layerArn: LAYER }));
    const traced = Object.entries(HANDLERS)
      .filter(([, spec]) => 'traces' in spec)
      .map(([name]) => name);
    expect(traced).toEqual(expect.arrayContaining(['api-payouts', 'submit-payouts', 'sweep-due-payouts']));
    for (const [name, { layers, wrapper }] of tracing) {
      if (traced.includes(name)) {
        expect(layers, name).toEqual([LAYER]);
        expect(wrapper, name).toBe('/opt/otel-instrument');
      } else {
        expect(layers, name).toEqual([]);
        expect(wrapper, name).toBeUndefined();
      }
    }
  });

  it('is off by default: no function gets a layer or a wrapper', () => {
    for (const [name, { layers, wrapper }] of tracingOf(stackWith(undefined))) {
      expect(layers, name).toEqual([]);
      expect(wrapper, name).toBeUndefined();
    }
  });

  it('refuses a layer ARN that is not one, or another wrapper, naming openTelemetry', () => {
    expect(() => stackWith({ layerArn: 'aws-otel-nodejs' })).toThrow(/openTelemetry/);
    expect(() => stackWith({ layerArn: LAYER, execWrapper: '/opt/bootstrap' })).toThrow(/openTelemetry/);
  });
});
