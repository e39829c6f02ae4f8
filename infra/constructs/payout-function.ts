import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** The project root: `functions/`, `package-lock.json` and `tsconfig.json` live there. */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * ESM bundles need a real `require` for the CommonJS dependencies esbuild inlines; without it they fail at
 * run time with "Dynamic require of node:... is not supported" (see TOOLCHAIN.md).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** esbuild settings shared by the construct and the bundle test, so the test builds what ships. */
export const BUNDLE_OPTIONS = {
  format: 'esm',
  target: 'node22',
  platform: 'node',
  banner: ESM_REQUIRE_BANNER,
  mainFields: ['module', 'main'],
  /**
   * The AWS SDK is bundled, not taken from the runtime. The runtime's copy is CommonJS, which Node has to load
   * file by file and lex for named exports on every cold start; bundled from its ESM build, only the commands
   * used are kept and it loads in one parse: the sweep's import went from ~125 ms to ~80 ms (`npm run bench`).
   * It also runs the SDK version the tests ran, not whichever the runtime ships that week.
   */
  external: [] as string[],
  /**
   * Packages replaced in the bundles. The SDK's default credential chain becomes its first link, the
   * environment, which is where Lambda puts the role's credentials: the other links were ~130 KB and ~9 ms of
   * every cold start (see lib/shared/lambda-credential-provider.ts).
   */
  alias: {
    '@aws-sdk/credential-provider-node': join(PROJECT_ROOT, 'lib', 'shared', 'lambda-credential-provider.ts'),
  },
} as const;

/**
 * Item actions on the table per access level: exactly the calls the stores make (Get, conditional
 * transactions of Put/Update/ConditionCheck). Query is granted apart, on the indexes a handler names and on
 * the table itself only for a handler that reads item collections (histories) by partition key.
 */
export const TABLE_ACTIONS = {
  read: ['dynamodb:GetItem'],
  readWrite: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
  /** Transitions known payouts (update plus audit put) and never claims one, so never checks the pause item. */
  decide: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /** Writes whole items it never reads back (the provider-schedule copy). */
  putOnly: ['dynamodb:PutItem'],
} as const;
export type TableAccess = keyof typeof TABLE_ACTIONS;

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
 * One Lambda handler from `functions/` with the project's defaults: nodejs22.x on arm64, ESM bundle built by
 * the local esbuild (no Docker), source maps, X-Ray, its own log group with retention. Permissions come only
 * through the `bind…` helpers, each of which sets the environment variable and the grant together.
 *
 * @example
 * const fn = new PayoutFunction(this, 'Sweep', { handlerFile: 'sweep-due-payouts', ... });
 * fn.bindTable(table, 'readWrite', ['gsi3']);
 * fn.bindProviderSecrets({ token: data.providerTokenSecret, pin: data.providerPinSecret });
 */
export class PayoutFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PayoutFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      // Logs are operational, not the system of record: the table and its audit events are.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, 'functions', `${props.handlerFile}.ts`),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
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
        POWERTOOLS_SERVICE_NAME: 'payouts',
        POWERTOOLS_METRICS_NAMESPACE: 'Payouts',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        banner: BUNDLE_OPTIONS.banner,
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        externalModules: [...BUNDLE_OPTIONS.external],
        esbuildArgs: {
          '--alias': Object.entries(BUNDLE_OPTIONS.alias).map(([from, to]) => `${from}=${to}`),
        },
        minify: true,
        sourceMap: true,
        forceDockerBundling: false,
      },
    });
  }

  /**
   * Sets TABLE_NAME and grants exactly the item actions of `access` on the table, and Query on the named
   * indexes (and on the table with `queriesTable`); no other action applies to an index.
   */
  bindTable(
    table: ITable,
    access: TableAccess,
    indexes: readonly string[] = [],
    options: { batchWrites?: boolean; queriesTable?: boolean; deletesItems?: boolean } = {},
  ): this {
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    const itemActions: string[] = [
      ...TABLE_ACTIONS[access],
      ...(options.deletesItems ? ['dynamodb:DeleteItem'] : []),
    ];
    this.function.addToRolePolicy(new PolicyStatement({ actions: itemActions, resources: [table.tableArn] }));
    // Query on an index is authorised on the index ARN, on the table's own keys on the table ARN.
    const queried = [
      ...(options.queriesTable ? [table.tableArn] : []),
      ...indexes.map((index) => `${table.tableArn}/index/${index}`),
    ];
    if (queried.length > 0) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: queried }));
    }
    if (options.batchWrites) {
      // BatchWriteItem is authorised on the table; it writes no index directly.
      this.function.addToRolePolicy(
        new PolicyStatement({ actions: ['dynamodb:BatchWriteItem'], resources: [table.tableArn] }),
      );
    }
    return this;
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
