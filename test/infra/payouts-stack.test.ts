import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { KeyPrefix } from '../../infra/config/key-prefixes.js';
import { PROJECT_ROOT, TABLE_ACTIONS } from '../../infra/constructs/payout-function.js';
import {
  HANDLERS,
  type HandlerName,
  type HandlerSpec,
  ProviderAccess,
  presentHandlers,
} from '../../infra/handlers.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import {
  API_FUNCTIONS,
  type ApiFunctionName,
  apiRouteTable,
  FALLBACK_API_FUNCTION,
} from '../../lib/api/functions/index.js';
import { apiRoutes } from '../../lib/api/index.js';
import { DOMAIN_EVENT_SOURCE } from '../../lib/events/domain-events.js';
import { INBOUND_EVENT_SOURCE } from '../../lib/events/schemas.js';
import { TableIndexes } from '../../lib/table/index.js';
import { stageConfigFromCdkJson, synthStack, testApp } from './support/synth.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

let stack: PayoutsStack;
let template: Template;
const present = presentHandlers();

beforeAll(() => {
  ({ stack, template } = synthStack('dev'));
});

const id = (element: unknown) => Stack.of(stack).getLogicalId(element as CfnElement);
const tableArn = () => ({ 'Fn::GetAtt': [id(stack.data.table.node.defaultChild), 'Arn'] });
const indexArn = (index: string) => ({ 'Fn::Join': ['', [tableArn(), `/index/${index}`]] });
const fnLogicalId = (name: HandlerName) => id(stack.functions.get(name)?.function.node.defaultChild);
const dlqArn = (name: string) => ({
  'Fn::GetAtt': [id(stack.deadLetterQueues.get(name)?.node.defaultChild), 'Arn'],
});

/** Every IAM statement attached to the handler's execution role. */
function statementsOf(name: HandlerName): Statement[] {
  const roleId = id(stack.functions.get(name)?.function.role?.node.defaultChild);
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );
}
const actionsOf = (statement: Statement) => [statement.Action].flat();
const statementWith = (name: HandlerName, prefix: string) =>
  statementsOf(name).filter((statement) => actionsOf(statement).some((action) => action.startsWith(prefix)));
const STREAM_ACTIONS = new Set([
  'dynamodb:ListStreams',
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
]);
/** A statement of the table stream's event source mapping: its actions are the stream's reads alone. */
const onStream = (statement: Statement) => actionsOf(statement).every((action) => STREAM_ACTIONS.has(action));

describe('handler registry', () => {
  it('has an entry for every handler in functions/, so none ships unwired', () => {
    const files = readdirSync(join(PROJECT_ROOT, 'functions'))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''));
    expect(files.filter((file) => !(file in HANDLERS))).toEqual([]);
  });

  it('deploys one function per handler present', () => {
    expect([...stack.functions.keys()].sort()).toEqual([...present].sort());
  });
});

describe('table', () => {
  it('has the keys and indexes of lib/table/table-design.ts, on demand, encrypted, streaming', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      GlobalSecondaryIndexes: Object.values(TableIndexes).map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  });

  it('keeps point-in-time recovery on and expires items only by expiresAt', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('is retained when the stack is deleted or the resource replaced', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('provider secrets', () => {
  const tokenSecretRef = () => ({ Ref: id(stack.data.providerTokenSecret.node.defaultChild) });
  const pinSecretRef = () => ({ Ref: id(stack.data.providerPinSecret.node.defaultChild) });
  const pinKeyArn = () => ({ 'Fn::GetAtt': [id(stack.data.providerPinKey.node.defaultChild), 'Arn'] });
  const roleArnOf = (name: HandlerName) => ({
    'Fn::GetAtt': [id(stack.functions.get(name)?.function.role?.node.defaultChild), 'Arn'],
  });
  const senders = present.filter((name) => HANDLERS[name].provider === ProviderAccess.TokenAndPin);

  it('hold no value in the template and are retained', () => {
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    expect(Object.keys(secrets)).toHaveLength(2);
    expect(
      Object.keys(template.findResources('AWS::KMS::Key', { Properties: { EnableKeyRotation: true } }))
        .length,
    ).toBeGreaterThanOrEqual(2);
    for (const secret of Object.values(secrets)) {
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.Properties.SecretString).toBeUndefined();
    }
  });

  it('keep the PIN in its own secret, under its own rotating customer-managed key', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('PIN'),
      KmsKeyId: pinKeyArn(),
    });
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true, Description: Match.stringLikeRegexp('PIN') },
    });
  });

  it('limit the PIN key without kms:EncryptionContext conditions (which the IAM proof cannot evaluate): Secrets Manager only, for the PIN secret only', () => {
    // @cloud-copilot/iam-simulate denies any statement conditioned on kms:EncryptionContext:<key>, whatever the
    // context (docs/iam-proof.md), so the key's limits must rest on what it can check, asserted here.
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toContain('kms:EncryptionContext');
    const keyId = id(stack.data.providerPinKey.node.defaultChild);
    const viaSecretsManager = {
      StringEquals: {
        'kms:ViaService': { 'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
      },
    };
    const accountRoot = {
      AWS: {
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
      },
    };
    const keyPolicy = template.toJSON().Resources[keyId].Properties.KeyPolicy as {
      Statement: { Effect: string; Action: string | string[]; Principal: unknown; Condition?: unknown }[];
    };
    // The Deny to all but the senders is asserted below ("refuse the PIN ...").
    for (const statement of keyPolicy.Statement.filter(({ Effect }) => Effect === 'Allow')) {
      // Only the account (so IAM policies decide, and the proof evaluates them); every use but key
      // administration (kms:*, CDK's default) only through Secrets Manager.
      expect(statement.Principal).toEqual(accountRoot);
      if (statement.Action !== 'kms:*') expect(statement.Condition).toEqual(viaSecretsManager);
    }
    // The key encrypts the PIN secret and nothing else, so "via Secrets Manager, on this key" is "the PIN".
    const encrypted = Object.values(template.findResources('AWS::SecretsManager::Secret')).filter((secret) =>
      JSON.stringify(secret.Properties.KmsKeyId ?? null).includes(keyId),
    );
    expect(encrypted).toHaveLength(1);
    expect(encrypted[0]?.Properties.Description).toMatch(/PIN/);
  });

  it('are sent money by exactly the API, the submission workers and the Payout Requested handler', () => {
    expect([...senders].sort()).toEqual(
      [
        // POST /payouts and approvals submit at once; a replayed Payout Requested dead letter does too.
        'api-payouts',
        'api-dead-letters',
        'payout-requested',
        'submit-payouts',
      ]
        .filter((name) => present.includes(name as HandlerName))
        .sort(),
    );
  });

  it('reach functions as ARNs only: the token to every provider caller, the PIN to money senders only', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const name of present) {
      const access = HANDLERS[name].provider;
      // A function with no variables at all (api-docs) has no Environment.
      const variables = functions[fnLogicalId(name)]?.Properties.Environment?.Variables ?? {};
      expect({ name, token: variables.PROVIDER_TOKEN_SECRET_ID }).toEqual({
        name,
        token: access === ProviderAccess.None ? undefined : tokenSecretRef(),
      });
      expect({ name, pin: variables.PROVIDER_PIN_SECRET_ID }).toEqual({
        name,
        pin: access === ProviderAccess.TokenAndPin ? pinSecretRef() : undefined,
      });
      expect(variables.PROVIDER_TOKEN).toBeUndefined();
      expect(variables.PROVIDER_PIN).toBeUndefined();
    }
  });

  const callers = present.filter((name) => HANDLERS[name].provider !== ProviderAccess.None);
  const tokenKeyId = () => id(stack.data.providerTokenKey.node.defaultChild);
  /** The Deny of `action` to every principal but `readers`, as a resource or key policy states it. */
  const denyAllBut = (sid: string, action: string, readers: readonly HandlerName[]) => ({
    Sid: sid,
    Effect: 'Deny',
    Principal: { AWS: '*' },
    Action: action,
    Resource: '*',
    Condition: { ArnNotEquals: { 'aws:PrincipalArn': readers.map(roleArnOf) } },
  });

  it('keep the token under its own rotating customer-managed key, which encrypts nothing else', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('API token'),
      KmsKeyId: { 'Fn::GetAtt': [tokenKeyId(), 'Arn'] },
    });
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true, Description: Match.stringLikeRegexp('API token') },
    });
    const encrypted = Object.values(template.findResources('AWS::SecretsManager::Secret')).filter((secret) =>
      JSON.stringify(secret.Properties.KmsKeyId ?? null).includes(tokenKeyId()),
    );
    expect(encrypted).toHaveLength(1);
  });

  it('refuse the token, and decrypting with its key, to every principal but the roles of the functions that call the provider', () => {
    // The functions that only read the table (and make no provider call) are not among them.
    expect(present.filter((name) => !callers.includes(name)).sort()).toEqual(
      [
        'api-recurrences',
        'api-docs',
        'api-payout-runs',
        'api-operators',
        'publish-domain-events',
        'notify-approvers',
      ]
        .filter((name) => present.includes(name as HandlerName))
        .sort(),
    );
    const sid = 'TokenOnlyForFunctionsThatCallTheProvider';
    template.hasResourceProperties('AWS::SecretsManager::ResourcePolicy', {
      SecretId: tokenSecretRef(),
      ResourcePolicy: { Statement: [denyAllBut(sid, 'secretsmanager:GetSecretValue', callers)] },
    });
    const keyPolicy = template.toJSON().Resources[tokenKeyId()].Properties.KeyPolicy as {
      Statement: { Effect: string }[];
    };
    expect(keyPolicy.Statement.filter(({ Effect }) => Effect === 'Deny')).toEqual([
      denyAllBut(sid, 'kms:Decrypt', callers),
    ]);
  });

  it('refuse the PIN to every principal but the roles of the functions that send money', () => {
    const pinKeyPolicy = template.toJSON().Resources[id(stack.data.providerPinKey.node.defaultChild)]
      .Properties.KeyPolicy as { Statement: { Effect: string }[] };
    expect(pinKeyPolicy.Statement.filter(({ Effect }) => Effect === 'Deny')).toEqual([
      denyAllBut('PinOnlyForFunctionsThatSendMoney', 'kms:Decrypt', senders),
    ]);
    template.hasResourceProperties('AWS::SecretsManager::ResourcePolicy', {
      SecretId: pinSecretRef(),
      ResourcePolicy: {
        Statement: [
          {
            Sid: 'PinOnlyForFunctionsThatSendMoney',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'secretsmanager:GetSecretValue',
            Resource: '*',
            Condition: { ArnNotEquals: { 'aws:PrincipalArn': senders.map(roleArnOf) } },
          },
        ],
      },
    });
  });
});

describe('functions', () => {
  it('run nodejs22.x on arm64 with tracing and the stage configuration', () => {
    for (const name of present) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: HANDLERS[name].description,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: { Ref: id(stack.data.table.node.defaultChild) },
          PROVIDER_BASE_URL: 'https://sandbox.provider.example',
          MAX_PAYOUT_KOBO: '50000000',
          DAILY_CAP_KOBO: '500000000',
          APPROVAL_THRESHOLD_KOBO: '10000000',
          SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789',
          SETTLEMENT_ALLOWED_HOURS: '08:00-18:00',
        }),
      },
    });
  });

  it('do not turn on source maps at run time, which would parse every map on each cold start', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }[];
    expect(functions.length).toBeGreaterThanOrEqual(present.length);
    for (const fn of functions) {
      expect(String(fn.Properties.Environment?.Variables?.NODE_OPTIONS ?? '')).not.toContain(
        '--enable-source-maps',
      );
    }
  });

  it('write to log groups with the stage retention', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(groups.length).toBeGreaterThanOrEqual(present.length);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(14);
  });
});

describe('least privilege', () => {
  /** `dynamodb:LeadingKeys` limited to `prefixes`, and present (ForAllValues alone holds for no key at all). */
  const leadingKeys = (prefixes: readonly string[] = []) => ({
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...prefixes] },
    Null: { 'dynamodb:LeadingKeys': 'false' },
  });
  const single = (actions: string[]) => (actions.length === 1 ? actions[0] : actions);

  it.each(present.filter((name) => 'table' in HANDLERS[name]))(
    '%s gets exactly its table actions on the table, its writes only on the partition keys it names, and Query on its indexes',
    (name) => {
      const spec: HandlerSpec = HANDLERS[name];
      if (!spec.table) return;
      const itemActions: string[] = [
        ...TABLE_ACTIONS[spec.table.access],
        ...(spec.table.deletesItems ? ['dynamodb:DeleteItem'] : []),
        ...(spec.table.batchWrites ? ['dynamodb:BatchWriteItem'] : []),
      ];
      const reads: string[] = itemActions.filter((action) => action === 'dynamodb:GetItem');
      const checks: string[] = itemActions.filter((action) => action === 'dynamodb:ConditionCheckItem');
      const writes = itemActions.filter((action) => !reads.includes(action) && !checks.includes(action));
      // The stream's reads are the stream's grant, on the stream's ARN (the publisher's own test below).
      const statements = statementWith(name, 'dynamodb:')
        .filter((statement) => !onStream(statement))
        .map((statement) => ({
          ...statement,
          Resource: [statement.Resource].flat(),
        }));
      expect(statements).toEqual([
        ...(reads.length > 0 ? [{ Effect: 'Allow', Action: single(reads), Resource: [tableArn()] }] : []),
        ...(writes.length > 0
          ? [
              {
                Effect: 'Allow',
                Action: single(writes),
                Resource: [tableArn()],
                Condition: leadingKeys(spec.table.writes),
              },
            ]
          : []),
        ...(checks.length > 0
          ? [
              {
                Effect: 'Allow',
                Action: single(checks),
                Resource: [tableArn()],
                Condition: leadingKeys(spec.table.checks),
              },
            ]
          : []),
        ...(spec.table.queriesTable || spec.table.indexes.length > 0
          ? [
              {
                Effect: 'Allow',
                Action: 'dynamodb:Query',
                Resource: [
                  ...(spec.table.queriesTable ? [tableArn()] : []),
                  ...spec.table.indexes.map(indexArn),
                ],
              },
            ]
          : []),
      ]);
    },
  );

  it('names the partition keys of every write, and never the controls item but for the function that pauses', () => {
    const writers = present.filter((name) => {
      const spec: HandlerSpec = HANDLERS[name];
      return spec.table !== undefined && spec.table.access !== 'read';
    });
    expect(writers.length).toBeGreaterThan(0);
    for (const name of writers) {
      const keyed = statementWith(name, 'dynamodb:').filter((statement) =>
        actionsOf(statement).some((action) => /PutItem|UpdateItem|DeleteItem|BatchWriteItem/.test(action)),
      ) as (Statement & { Condition?: Record<string, Record<string, unknown>> })[];
      expect({ name, keyed: keyed.length }).toEqual({ name, keyed: 1 });
      const prefixes = keyed[0]?.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[];
      expect({ name, wildcardOnly: prefixes.filter((prefix) => /^\*|^[^#]*\*$/.test(prefix)) }).toEqual({
        name,
        wildcardOnly: [],
      });
      expect({ name, controls: prefixes.includes(KeyPrefix.controls) }).toEqual({
        name,
        controls: name === 'api-payouts',
      });
    }
    // The schedule sync writes its own copy and nothing else.
    expect(HANDLERS['sync-provider-schedules'].table.writes).toEqual([KeyPrefix.providerSchedule]);
  });

  it.each(present.filter((name) => HANDLERS[name].provider !== ProviderAccess.None))(
    '%s reads the secrets of its provider access and nothing else',
    (name) => {
      const tokenSecret = { Ref: id(stack.data.providerTokenSecret.node.defaultChild) };
      const pinSecret = { Ref: id(stack.data.providerPinSecret.node.defaultChild) };
      const sendsMoney = HANDLERS[name].provider === ProviderAccess.TokenAndPin;
      expect(statementWith(name, 'secretsmanager:')).toEqual([
        { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: tokenSecret },
        ...(sendsMoney
          ? [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: pinSecret }]
          : []),
      ]);
      const viaSecretsManager = {
        StringEquals: {
          'kms:ViaService': {
            'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
          },
        },
      };
      const keyArn = (key: unknown) => ({ 'Fn::GetAtt': [id(key), 'Arn'] });
      expect(statementWith(name, 'kms:')).toEqual([
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: keyArn(stack.data.providerTokenKey.node.defaultChild),
          Condition: viaSecretsManager,
        },
        ...(sendsMoney
          ? [
              {
                Effect: 'Allow',
                Action: 'kms:Decrypt',
                Resource: keyArn(stack.data.providerPinKey.node.defaultChild),
                Condition: viaSecretsManager,
              },
            ]
          : []),
      ]);
    },
  );

  it('never grants scans, deletes and batch writes only to the handlers that make them', () => {
    const all = present.flatMap((name) => statementsOf(name).flatMap(actionsOf));
    expect(all.filter((action) => /dynamodb:(Scan|\*)/.test(action))).toEqual([]);
    const deleters = present.filter((name) =>
      statementsOf(name).some((statement) => actionsOf(statement).includes('dynamodb:DeleteItem')),
    );
    expect(deleters).toEqual(
      present.filter((name) => {
        const spec: HandlerSpec = HANDLERS[name];
        return spec.table?.deletesItems === true;
      }),
    );
    const batchWriters = present.filter((name) =>
      statementsOf(name).some((statement) => actionsOf(statement).includes('dynamodb:BatchWriteItem')),
    );
    expect(batchWriters).toEqual(
      present.filter((name) => {
        const spec: HandlerSpec = HANDLERS[name];
        return spec.table?.batchWrites === true;
      }),
    );
  });

  it.skipIf(!present.includes('publish-domain-events'))(
    'lets the domain-events publisher read the stream and put events on the bus only',
    () => {
      const name = 'publish-domain-events';
      expect(statementWith(name, 'secretsmanager:')).toEqual([]);
      expect(statementWith(name, 'events:')).toEqual([
        {
          Effect: 'Allow',
          Action: 'events:PutEvents',
          Resource: { 'Fn::GetAtt': [id(stack.events.bus.node.defaultChild), 'Arn'] },
          Condition: {
            'ForAllValues:StringEquals': { 'events:source': [DOMAIN_EVENT_SOURCE] },
            Null: { 'events:source': 'false' },
          },
        },
      ]);
      const streamReads = statementWith(name, 'dynamodb:').filter(onStream).flatMap(actionsOf);
      expect(streamReads.sort()).toEqual(
        [
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
          'dynamodb:ListStreams',
        ].sort(),
      );
    },
  );
});

describe('ops API', () => {
  const routes = () => Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
  /** The function a route's integration invokes, by handler name. */
  const servedBy = (route: { Properties?: { Target?: unknown } }): string | undefined => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const [integrationId] =
      Object.entries(integrations).find(([integrationId]) =>
        JSON.stringify(route.Properties?.Target).includes(`{"Ref":"${integrationId}"}`),
      ) ?? [];
    const uri = JSON.stringify(integrations[integrationId ?? '']?.Properties.IntegrationUri);
    return present.find((name) => uri.includes(`"${fnLogicalId(name)}"`));
  };

  it('declares every route of lib/api, ANY on each path, and $default, each requiring IAM (SigV4) authorisation', () => {
    expect(
      routes()
        .map((route) => route.Properties.RouteKey)
        .sort(),
    ).toEqual(
      [
        ...apiRoutes.map((route) => `${route.method} ${route.path}`),
        ...new Set(apiRoutes.map((route) => `ANY ${route.path}`)),
        '$default',
      ].sort(),
    );
    for (const route of routes()) expect(route.Properties.AuthorizationType).toBe('AWS_IAM');
  });

  it('sends each route, and any other method of its path, to the function that serves it (lib/api/functions), and $default to the fallback', () => {
    const sent = Object.fromEntries(routes().map((route) => [route.Properties.RouteKey, servedBy(route)]));
    expect(sent).toEqual({
      ...Object.fromEntries(
        apiRouteTable().flatMap((route) => [
          [`${route.method} ${route.path}`, route.functionName],
          [`ANY ${route.path}`, route.functionName],
        ]),
      ),
      $default: FALLBACK_API_FUNCTION,
    });
  });

  it('runs every API function on 512 MB with a 29 s timeout, inside API Gateway’s 30 s', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const name of Object.keys(API_FUNCTIONS) as ApiFunctionName[]) {
      const { MemorySize, Timeout } = functions[fnLogicalId(name)]?.Properties ?? {};
      expect({ name, MemorySize, Timeout }).toEqual({ name, MemorySize: 512, Timeout: 29 });
    }
  });

  it('deploys each function of lib/api/functions as an API handler of that name, and no other', () => {
    const apiHandlers = present.filter((name) => HANDLERS[name].trigger.kind === 'api');
    expect(apiHandlers.sort()).toEqual((Object.keys(API_FUNCTIONS) as ApiFunctionName[]).sort());
    for (const [name, api] of Object.entries(API_FUNCTIONS)) expect(api.name).toBe(name);
  });

  it('writes JSON access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
  });
});

describe('schedules', () => {
  const scheduled = present.filter((name) => HANDLERS[name].trigger.kind === 'schedule');

  /** How EventBridge Scheduler spells a rate: in the largest whole unit. */
  const rateExpression = (minutes: number) => {
    const [amount, unit] =
      minutes % 1440 === 0
        ? [minutes / 1440, 'day']
        : minutes % 60 === 0
          ? [minutes / 60, 'hour']
          : [minutes, 'minute'];
    return `rate(${amount} ${unit}${amount === 1 ? '' : 's'})`;
  };

  it.each(scheduled)('%s runs on its rate with a retry policy and a DLQ', (name) => {
    const trigger = HANDLERS[name].trigger;
    if (trigger.kind !== 'schedule') return;
    const minutes = trigger.every(stageConfigFromCdkJson('dev')).toMinutes();
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: rateExpression(minutes),
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [fnLogicalId(name), 'Arn'] },
        DeadLetterConfig: { Arn: dlqArn(name) },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: Math.max(60, minutes * 60) },
      },
    });
  });

  it('drives the due-payout sweeper and reconciliation every minute', () => {
    expect(scheduled).toEqual(expect.arrayContaining(['sweep-due-payouts', 'reconcile-payouts']));
  });
});

describe('asynchronous invocations', () => {
  it.each(present.filter((name) => ['schedule', 'event'].includes(HANDLERS[name].trigger.kind)))(
    '%s sends invocations that failed after retries to its DLQ',
    (name) => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fnLogicalId(name) },
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: dlqArn(name) } },
      });
    },
  );

  it('keeps dead letters 14 days, encrypted, TLS only', () => {
    // Every queue but the submission queue (test/infra/submission-queue.test.ts) is a dead-letter queue.
    const work = stack.submissionQueue ? id(stack.submissionQueue.node.defaultChild) : undefined;
    const all = template.findResources('AWS::SQS::Queue');
    const queues = Object.entries(all)
      .filter(([logicalId]) => logicalId !== work)
      .map(([, queue]) => queue);
    expect(queues).toHaveLength(stack.deadLetterQueues.size);
    for (const queue of queues) {
      expect(queue.Properties).toMatchObject({
        MessageRetentionPeriod: 1_209_600,
        SqsManagedSseEnabled: true,
      });
    }
    expect(Object.keys(template.findResources('AWS::SQS::QueuePolicy'))).toHaveLength(
      Object.keys(all).length,
    );
  });
});

describe('event rules', () => {
  const routed = present.filter((name) => HANDLERS[name].trigger.kind === 'event');

  it.each(routed)('%s receives its detail type from the payouts bus, with retries and a DLQ', (name) => {
    const trigger = HANDLERS[name].trigger;
    if (trigger.kind !== 'event') return;
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: id(stack.events.bus.node.defaultChild) },
      EventPattern: { source: [INBOUND_EVENT_SOURCE], 'detail-type': [trigger.detailType] },
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [fnLogicalId(name), 'Arn'] },
          DeadLetterConfig: { Arn: dlqArn(name) },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 21_600 },
        }),
      ],
    });
  });

  it('has a named custom bus', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'payouts-dev' });
  });

  const busArn = () => ({ 'Fn::GetAtt': [id(stack.events.bus.node.defaultChild), 'Arn'] });
  const busPolicy = (sid: string) =>
    Object.values(template.findResources('AWS::Events::EventBusPolicy')).find(
      (policy) => policy.Properties.Statement.Sid === `cdk-${sid}`,
    )?.Properties.Statement;

  it('lets nobody put merchant.payouts events when the stage names no producer role', () => {
    expect(stageConfigFromCdkJson('dev').eventProducerRoleArns).toEqual([]);
    expect(busPolicy('InboundOnlyFromProducers')).toEqual({
      Sid: 'cdk-InboundOnlyFromProducers',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'events:PutEvents',
      Resource: busArn(),
      Condition: { 'ForAnyValue:StringEquals': { 'events:source': [INBOUND_EVENT_SOURCE] } },
    });
  });

  it("lets only the stage's producer roles put merchant.payouts events", () => {
    const producers = [
      'arn:aws:iam::111122223333:role/orders-service',
      'arn:aws:iam::444455556666:role/billing',
    ];
    const app = testApp();
    const withProducers = new PayoutsStack(app, 'Payouts-producers', {
      stage: 'dev',
      config: { ...stageConfigFromCdkJson('dev'), eventProducerRoleArns: producers },
    });
    const policies = Object.values(
      Template.fromStack(withProducers).findResources('AWS::Events::EventBusPolicy'),
    ).map((policy) => policy.Properties.Statement);
    expect(policies).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: {
          'ForAnyValue:StringEquals': { 'events:source': [INBOUND_EVENT_SOURCE] },
          ArnNotEquals: { 'aws:PrincipalArn': producers },
        },
      }),
    );
    expect(policies).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { AWS: producers },
        Action: 'events:PutEvents',
        Condition: {
          'ForAllValues:StringEquals': { 'events:source': [INBOUND_EVENT_SOURCE] },
          Null: { 'events:source': 'false' },
        },
      }),
    );
  });

  it.skipIf(!present.includes('publish-domain-events'))(
    'lets only the domain-events publisher put merchant.payouts.engine events',
    () => {
      expect(busPolicy('EngineEventsOnlyFromPublisher')).toEqual({
        Sid: 'cdk-EngineEventsOnlyFromPublisher',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'events:PutEvents',
        Resource: busArn(),
        Condition: {
          'ForAnyValue:StringEquals': { 'events:source': [DOMAIN_EVENT_SOURCE] },
          ArnNotEquals: {
            'aws:PrincipalArn': [
              {
                'Fn::GetAtt': [
                  id(stack.functions.get('publish-domain-events')?.function.role?.node.defaultChild),
                  'Arn',
                ],
              },
            ],
          },
        },
      });
    },
  );
});

describe.skipIf(!present.includes('publish-domain-events'))('domain events outbox', () => {
  it('feeds payout outcome changes from the stream to the publisher, in order, with partial batch failures and a DLQ', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnLogicalId('publish-domain-events') },
      EventSourceArn: { 'Fn::GetAtt': [id(stack.data.table.node.defaultChild), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: false,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: dlqArn('publish-domain-events') } },
      FilterCriteria: {
        Filters: [
          {
            // A statement's finding, when first written (a re-run's rewrite is a MODIFY: published once).
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: {
                NewImage: {
                  entity: { S: ['statement_line'] },
                  line: {
                    M: {
                      kind: {
                        S: [
                          'ours_not_at_provider',
                          'provider_not_ours',
                          'amount_mismatch',
                          'fee_mismatch',
                          'duplicate',
                          'status_mismatch',
                        ],
                      },
                    },
                  },
                },
              },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              dynamodb: {
                NewImage: {
                  entity: { S: ['payout'] },
                  // `cancelled` publishes nothing of its own: a run's payout cancelled ends its row.
                  status: { S: ['succeeded', 'failed', 'needs_review', 'missed', 'cancelled'] },
                },
              },
            }),
          },
          // An instruction entering or leaving pending_approval (Approval Requested, Approval Decided).
          ...['NewImage', 'OldImage'].map((image) => ({
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              dynamodb: {
                [image]: {
                  entity: { S: ['payout', 'refund', 'recurrence', 'bulk-item-correction'] },
                  status: { S: ['pending_approval'] },
                },
              },
            }),
          })),
          {
            // Every change of a payout run (its approval, its end) and of its rows (a row refused ends it).
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              dynamodb: { NewImage: { entity: { S: ['payout-run', 'payout-run-row'] } } },
            }),
          },
        ],
      },
    });
  });

  it('tells the publisher which bus to use and the table its run bookkeeping writes, and nothing about the provider', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: HANDLERS['publish-domain-events'].description,
      Environment: {
        Variables: Match.objectLike({
          EVENT_BUS_NAME: { Ref: id(stack.events.bus.node.defaultChild) },
          TABLE_NAME: { Ref: id(stack.data.table.node.defaultChild) },
          PROVIDER_TOKEN_SECRET_ID: Match.absent(),
          PROVIDER_PIN_SECRET_ID: Match.absent(),
        }),
      },
    });
  });
});

describe('alarms', () => {
  const topicRef = () => ({ Ref: id(stack.monitoring.topic.node.defaultChild) });

  it('alarm on errors and throttles of every handler', () => {
    for (const name of present) {
      for (const metric of ['Errors', 'Throttles']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(name) } }],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          AlarmActions: [topicRef()],
        });
      }
    }
  });

  it('alarm as soon as any dead-letter queue holds a message', () => {
    for (const name of stack.deadLetterQueues.keys()) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqArn(name)['Fn::GetAtt'][0], 'QueueName'] } },
        ],
        Threshold: 1,
        AlarmActions: [topicRef()],
      });
    }
  });

  it('alarm when a payout needs review, stays unknown too long, or is missed', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.message = "reconciliation finished" }',
      MetricTransformations: [
        Match.objectLike({ MetricName: 'ReconcileNeedsReview', MetricValue: '$.needsReview' }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('needs_review'),
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'FILL(logs, 0) + FILL(emf, 0)' })]),
      Threshold: 1,
      AlarmActions: [topicRef()],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ReconcileStillUnknown',
      Namespace: 'Payouts',
      Statistic: 'Minimum',
      EvaluationPeriods: 6,
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'SweepMissed',
      Namespace: 'Payouts',
    });
    // The sweep handler logs `{ recurrences, payouts: SweepReport }`.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.message = "sweep finished" }',
      MetricTransformations: [
        Match.objectLike({ MetricName: 'SweepMissed', MetricValue: '$.payouts.missed' }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ReconcileOpenNeedsReview',
      Statistic: 'Minimum',
      AlarmDescription: Match.stringLikeRegexp('waited in needs_review'),
    });
  });

  it('alarm as soon as a payout is found paid twice', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.message = "reconciliation finished" }',
      MetricTransformations: [
        Match.objectLike({ MetricName: 'ReconcilePaidTwice', MetricValue: '$.paidTwice' }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('paid twice'),
      Metrics: Match.arrayWith([
        Match.objectLike({
          Expression: 'FILL(logs, 0) + FILL(emf, 0)',
        }),
        Match.objectLike({
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'PayoutPaidTwice' }) }),
        }),
      ]),
      Threshold: 1,
      EvaluationPeriods: 1,
      AlarmActions: [topicRef()],
    });
  });

  it('has a dashboard of outcomes, latency and amounts', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    for (const text of ['PayoutSubmission_succeeded', 'ProviderCallLatency', 'PayoutAmountKobo']) {
      expect(body).toContain(text);
    }
  });
});

describe.skipIf(!present.includes('health-canary'))('health canary', () => {
  const minutes = stageConfigFromCdkJson('dev').healthCanaryMinutes;

  it('runs the deep health check on the stage rate, with a retry policy and a DLQ', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: `rate(${minutes} minute${minutes === 1 ? '' : 's'})`,
      Target: { Arn: { 'Fn::GetAtt': [fnLogicalId('health-canary'), 'Arn'] } },
    });
  });

  it('alarms to the topic when the check fails and when the canary wrote nothing (did not run)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Payouts',
      MetricName: 'DeepHealthFailed',
      Dimensions: [{ Name: 'service', Value: 'payouts' }],
      Statistic: 'Maximum',
      Period: Math.max(5, minutes) * 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: id(stack.monitoring.topic.node.defaultChild) }],
    });
  });

  it('reads the controls item and the token, and nothing else: no writes, no index, no PIN, no queue', () => {
    const statements = statementsOf('health-canary');
    const actions = statements.flatMap(actionsOf).sort();
    expect(actions).toEqual(
      [
        'dynamodb:GetItem',
        'kms:Decrypt',
        'secretsmanager:GetSecretValue',
        // Lambda's on-failure destination (its DLQ) and active tracing.
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    expect(statementWith('health-canary', 'dynamodb:')).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn() },
    ]);
    expect(statementWith('health-canary', 'secretsmanager:')).toEqual([
      {
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: { Ref: id(stack.data.providerTokenSecret.node.defaultChild) },
      },
    ]);
  });
});
