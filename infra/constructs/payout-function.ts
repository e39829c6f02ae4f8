import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  type ILayerVersion,
  Function as LambdaFunction,
  LayerVersion,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PROJECT_ROOT } from '../bundling/build-handler.js';

export { BUNDLE_OPTIONS, PROJECT_ROOT } from '../bundling/build-handler.js';

/**
 * Item actions on the table per access level: exactly the calls the stores make (Get, conditional
 * transactions of Put/Update/ConditionCheck). Query is granted apart, on the indexes a handler names and on
 * the table itself only for a handler that reads item collections (histories) by partition key.
 */
export const TABLE_ACTIONS = {
  read: ['dynamodb:GetItem'],
  /** Also claims refunds, whose claim transaction checks the pause item (ConditionCheck). */
  readWrite: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
  /**
   * Creates, claims and records payouts, and claims no refund: a payout's claim reads the pause item after it
   * committed (GetItem) instead of checking it in the transaction, so no ConditionCheck.
   */
  readWriteNoPauseCheck: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /**
   * Decides settlements: creates their payouts pending for the submission workers (it claims none, so it
   * updates no item) and records decisions and deferrals, a deferral only while no decision exists
   * (ConditionCheck).
   */
  decideSettlements: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
  /** Transitions known payouts (update plus audit put) and never claims one, so never checks the pause item. */
  decide: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /**
   * Counts payout runs' rows' ends from the stream: a marker put only if absent with the run's counters (Put,
   * Update), a cancelled run's unsent rows checked to have no payout (ConditionCheck); it reads by Query alone.
   */
  countRunEnds: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
  /** Writes whole items it never reads back, and reads only its own cursor (the provider-schedule copy). */
  copy: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  /** Claims and records markers with conditional updates only, reading them back from the update's answer. */
  mark: ['dynamodb:UpdateItem'],
} as const;
export type TableAccess = keyof typeof TABLE_ACTIONS;

/** How a function uses the table beyond its access level (infra/handlers.ts says it per handler). */
export interface TableBindingOptions {
  /** Also dynamodb:BatchWriteItem, conditioned like the other writes. */
  readonly batchWrites?: boolean;
  /** Also Query on the table itself. */
  readonly queriesTable?: boolean;
  /** Also dynamodb:DeleteItem, conditioned like the other writes. */
  readonly deletesItems?: boolean;
  /** Partition-key patterns (infra/config/key-prefixes.ts) of every item it puts, updates or deletes. */
  readonly writes?: readonly string[];
  /** Partition-key patterns of the items its transactions only check (ConditionCheckItem). */
  readonly checks?: readonly string[];
}

export interface PayoutFunctionProps {
  /** File name under `functions/`, without extension: `sweep-due-payouts`. */
  readonly handlerFile: string;
  readonly description: string;
  readonly logRetention: RetentionDays;
  readonly timeout?: Duration;
  readonly memorySize?: number;
  readonly reservedConcurrentExecutions?: number;
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * One Lambda handler from `functions/` with the project's defaults: nodejs22.x on arm64, a CommonJS bundle built by
 * the project's own build (infra/bundling/build-handler.ts, the one the bundle test and the cold-start
 * benchmark run; no Docker), source maps, X-Ray, its own log group with retention. Permissions come only
 * through the `bind…` helpers, each of which sets the environment variable and the grant together.
 *
 * @example
 * const fn = new PayoutFunction(this, 'Sweep', { handlerFile: 'sweep-due-payouts', ... });
 * fn.bindTable(table, 'readWrite', ['gsi3'], { writes: [KeyPrefix.payout], checks: [KeyPrefix.controls] });
 * fn.bindProviderSecrets({ token: data.providerTokenSecret, pin: data.providerPinSecret });
 */
export class PayoutFunction extends Construct {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PayoutFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      // Logs are operational, not the system of record: the table and its audit events are.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.function = new LambdaFunction(this, 'Function', {
      code: handlerCode(props.handlerFile),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      ...(props.reservedConcurrentExecutions !== undefined && {
        reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      }),
      environment: {
        // No --enable-source-maps: Node then parses each ~1.8 MB map at import, ~15-20 ms of every cold start.
        // The maps ship beside the bundles for symbolicating a stack trace; to read traces live while
        // debugging, set NODE_OPTIONS=--enable-source-maps on the function.
        ...props.environment,
      },
    });
  }

  /**
   * Gives the function the ADOT layer and its wrapper, which registers the tracer provider the function's spans
   * (lib/shared/tracing.ts) are exported through. Its handler stays as esbuild built it: the layer's own wrapping
   * of an immutable export does not take, so the function's spans (the API's request, the worker's claim and
   * send) are the roots and children of its trace, beside Lambda's own X-Ray segments.
   */
  addOpenTelemetry(otel: { readonly layer: ILayerVersion; readonly execWrapper: string }): this {
    this.function.addLayers(otel.layer);
    this.function.addEnvironment('AWS_LAMBDA_EXEC_WRAPPER', otel.execWrapper);
    return this;
  }

  /**
   * Sets TABLE_NAME and grants exactly the item actions of `access` on the table, and Query on the named
   * indexes (and on the table with `queriesTable`); no other action applies to an index. Reads (GetItem) name the
   * table only; every write (Put/Update/DeleteItem, BatchWriteItem) is conditioned on `dynamodb:LeadingKeys` to
   * the partition-key patterns of `writes`, and ConditionCheckItem to those of `checks` (infra/config/key-prefixes.ts).
   *
   * @throws Error when the access writes (or checks) items and no patterns say which
   */
  bindTable(
    table: ITable,
    access: TableAccess,
    indexes: readonly string[] = [],
    options: TableBindingOptions = {},
  ): this {
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    const itemActions: string[] = [
      ...TABLE_ACTIONS[access],
      ...(options.deletesItems ? ['dynamodb:DeleteItem'] : []),
      // BatchWriteItem is authorised on the table; it writes no index directly.
      ...(options.batchWrites ? ['dynamodb:BatchWriteItem'] : []),
    ];
    const reads: string[] = itemActions.filter((action) => action === 'dynamodb:GetItem');
    const checks: string[] = itemActions.filter((action) => action === 'dynamodb:ConditionCheckItem');
    const writes = itemActions.filter((action) => !reads.includes(action) && !checks.includes(action));
    if (reads.length > 0) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: reads, resources: [table.tableArn] }));
    }
    this.#grantKeyed(table, writes, options.writes, 'writes');
    this.#grantKeyed(table, checks, options.checks, 'checks');
    // Query on an index is authorised on the index ARN, on the table's own keys on the table ARN.
    const queried = [
      ...(options.queriesTable ? [table.tableArn] : []),
      ...indexes.map((index) => `${table.tableArn}/index/${index}`),
    ];
    if (queried.length > 0) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: queried }));
    }
    return this;
  }

  /**
   * `actions` on the table only for items whose partition key matches one of `prefixes`. ForAllValues: every key
   * a request writes must match (a BatchWriteItem's all; each item of a transaction is its own request). The
   * Null test refuses a request without the key, for which ForAllValues alone would hold.
   */
  #grantKeyed(table: ITable, actions: string[], prefixes: readonly string[] | undefined, what: string): void {
    if (actions.length === 0) return;
    if (!prefixes || prefixes.length === 0) {
      throw new Error(`${this.node.id}: ${actions.join(', ')} granted with no partition keys it ${what}`);
    }
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions,
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...prefixes] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
  }

  /**
   * Sets PROVIDER_TOKEN_SECRET_ID and grants reading that secret; with `pin`, also PROVIDER_PIN_SECRET_ID and
   * reading the PIN's secret, which includes kms:Decrypt on its key through Secrets Manager only. A function
   * bound without `pin` has neither the variable nor the grant, so it never tries to read the PIN.
   */
  bindProviderSecrets(secrets: { token: ISecret; pin?: ISecret }): this {
    this.function.addEnvironment('PROVIDER_TOKEN_SECRET_ID', secrets.token.secretArn);
    this.#grantSecretValue(secrets.token);
    if (secrets.pin) {
      this.function.addEnvironment('PROVIDER_PIN_SECRET_ID', secrets.pin.secretArn);
      this.#grantSecretValue(secrets.pin);
    }
    return this;
  }

  /**
   * GetSecretValue on the secret, plus kms:Decrypt on its customer-managed key when it has one, limited to
   * calls Secrets Manager makes. Not `grantRead`: it adds DescribeSecret, which no function calls.
   */
  #grantSecretValue(secret: ISecret): void {
    this.function.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    if (secret.encryptionKey) {
      const region = Stack.of(this).region;
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [secret.encryptionKey.keyArn],
          // Only through Secrets Manager. The key encrypts nothing but this secret, so the key ARN already names
          // it; an encryption-context condition on the secret's ARN would add nothing the IAM proof could check
          // (its evaluator does not read kms:EncryptionContext:<key> keys).
          conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${region}.amazonaws.com` } },
        }),
      );
    }
  }

  addEnvironment(values: Readonly<Record<string, string>>): this {
    for (const [key, value] of Object.entries(values)) this.function.addEnvironment(key, value);
    return this;
  }
}

/**
 * The function's code: its bundle, built at synth by infra/bundling/cli.ts in a child `node` (CDK bundles
 * synchronously; esbuild runs plugins only in its asynchronous API). NodejsFunction is not used because it
 * drives the esbuild CLI, which takes no plugins. Hashed by the output, like NodejsFunction's assets.
 */
function handlerCode(handlerFile: string): Code {
  return Code.fromAsset(join(PROJECT_ROOT, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always answers (it builds, or throws with esbuild's message).
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: {
        tryBundle(outputDir) {
          const built = spawnSync(
            process.execPath,
            ['--import', 'tsx', join(PROJECT_ROOT, 'infra', 'bundling', 'cli.ts'), handlerFile, outputDir],
            { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
          );
          if (built.status !== 0)
            throw new Error(`bundling ${handlerFile} failed: ${built.stderr || built.error}`);
          return true;
        },
      },
    },
  });
}

/** The stage's ADOT layer (`openTelemetry` of the stage config), imported into `scope` once for all its functions. */
export function openTelemetryLayer(
  scope: Construct,
  config: { readonly layerArn: string; readonly execWrapper: string },
): { readonly layer: ILayerVersion; readonly execWrapper: string } {
  return {
    layer: LayerVersion.fromLayerVersionArn(scope, 'OpenTelemetryLayer', config.layerArn),
    execWrapper: config.execWrapper,
  };
}
