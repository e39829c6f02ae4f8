import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseStageConfig, type StageConfig } from '../../../infra/config/stage-config.js';
import { PROJECT_ROOT } from '../../../infra/constructs/payout-function.js';
import { PayoutsStack } from '../../../infra/stacks/payouts-stack.js';

/** The per-stage context of cdk.json, so the tests check the configuration that deploys. */
export function stageConfigFromCdkJson(stage: string): StageConfig {
  const cdkJson: { context: { stages: Record<string, unknown> } } = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8'),
  );
  return parseStageConfig(stage, cdkJson.context.stages[stage]);
}

/** A fresh app that skips bundling (the bundle test builds the handlers) and writes outside the repo. */
export function testApp(): App {
  return new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    outdir: mkdtempSync(join(tmpdir(), 'payouts-cdk-')),
  });
}

export function synthStack(stage = 'dev'): { app: App; stack: PayoutsStack; template: Template } {
  const app = testApp();
  const stack = new PayoutsStack(app, `Payouts-${stage}`, { stage, config: stageConfigFromCdkJson(stage) });
  return { app, stack, template: Template.fromStack(stack) };
}
