import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

/** docs/controls.md, "Identity": the roles whose session name is the person reach the API function. */
describe('stage config opsSessionNamedRoles', () => {
  const valid = stageConfigFromCdkJson('dev');

  it('defaults to none: every session of a role is one identity', () => {
    const { opsSessionNamedRoles: _, ...withoutRoles } = valid;
    expect(parseStageConfig('qa', withoutRoles).opsSessionNamedRoles).toEqual([]);
  });

  it('refuses a bare * (every role) and names that are not IAM role names', () => {
    expect(() => parseStageConfig('qa', { ...valid, opsSessionNamedRoles: ['*'] })).toThrow(
      /opsSessionNamedRoles/,
    );
    expect(() => parseStageConfig('qa', { ...valid, opsSessionNamedRoles: ['a b'] })).toThrow(
      /opsSessionNamedRoles/,
    );
  });

  it('passes the listed roles to the functions as OPS_SESSION_NAMED_ROLES', () => {
    const config = parseStageConfig('qa', {
      ...valid,
      opsSessionNamedRoles: ['AWSReservedSSO_PayoutOps_*', 'PayoutApprovers'],
    });
    const stack = new PayoutsStack(testApp(), 'Payouts-qa', { stage: 'qa', config });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          OPS_SESSION_NAMED_ROLES: 'AWSReservedSSO_PayoutOps_*,PayoutApprovers',
        }),
      },
    });
  }, 120_000);
});
