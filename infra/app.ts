import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseStageConfig, StageConfigError } from './config/stage-config.js';
import { PayoutsStack } from './stacks/payouts-stack.js';

/**
 * The CDK app: `npx cdk synth -c stage=dev`. Reads the stage and its configuration from context (cdk.json
 * `context.stages.<stage>`), validates it, and builds one stack per stage. The stack is
 * environment-agnostic unless `account` and `region` are given, so `npm run synth` needs no credentials.
 */
const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
const stages: unknown = app.node.tryGetContext('stages');
const stageInput = typeof stages === 'object' && stages !== null ? Reflect.get(stages, stage) : undefined;

try {
  const config = parseStageConfig(stage, stageInput);
  const account: unknown = app.node.tryGetContext('account');
  const region: unknown = app.node.tryGetContext('region');
  new PayoutsStack(app, `Payouts-${stage}`, {
    stage,
    config,
    description: `Payout automation (${stage})`,
    ...(typeof account === 'string' && typeof region === 'string' && { env: { account, region } }),
    tags: { service: 'payouts', stage },
  });
} catch (error) {
  if (error instanceof StageConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
