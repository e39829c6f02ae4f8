import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

interface ValidationReport {
  pluginReports: {
    summary: { pluginName: string };
    violations: {
      ruleName: string;
      description: string;
      /** Absent for a finding about the app rather than a resource. */
      violatingResources?: { resourceLogicalId: string }[];
    }[];
  }[];
}

describe('cdk-nag AwsSolutions', () => {
  // A synth of the whole stack with cdk-nag's checks: 15 s alone, up to 40 s with heavy files beside it. The
  // timeout is a guard against a hang, not a measure.
  it.each(['dev', 'prod'])(
    'finds nothing unacknowledged in the %s stack',
    (stage) => {
      const app = testApp();
      new PayoutsStack(app, `Payouts-${stage}`, { stage, config: stageConfigFromCdkJson(stage) });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      let failure: unknown;
      try {
        app.synth();
      } catch (error) {
        failure = error;
      }
      const reportFile = join(app.outdir, 'validation-report.json');
      const report: ValidationReport = existsSync(reportFile)
        ? JSON.parse(readFileSync(reportFile, 'utf8'))
        : { pluginReports: [] };
      const findings = report.pluginReports.flatMap((plugin) =>
        plugin.violations.map(
          (violation) =>
            `${violation.ruleName} on ${violation.violatingResources?.map((r) => r.resourceLogicalId).join(', ') ?? violation.description}`,
        ),
      );
      expect(findings).toEqual([]);
      expect(failure).toBeUndefined();
    },
    120_000,
  );
});
