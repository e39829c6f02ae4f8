import { PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HANDLERS,
  type HandlerName,
  type HandlerSpec,
  ProviderAccess,
  presentHandlers,
} from '../../infra/handlers.js';
import { docsApiHandler } from '../../lib/api/functions/docs.js';
import { API_FUNCTIONS, type ApiFunctionName, apiFunctionServing } from '../../lib/api/functions/index.js';
import type { ApiHandler } from '../../lib/api/router.js';
import type { CorrectionJob, JobItem } from '../../lib/bulk-corrections/job-model.js';
import { DynamoDbCorrectionJobStore } from '../../lib/bulk-corrections/store/dynamodb-job-store.js';
import {
  type DeadLettered,
  DynamoDbDeadLetterStore,
  withDeadLetter,
} from '../../lib/events/dead-letters/index.js';
import { EventBridgePublisher } from '../../lib/events/event-publisher.js';
import { handlePayoutRequested, inboundEventHandlers } from '../../lib/events/inbound-handlers.js';
import { publishStreamBatch } from '../../lib/events/publish-stream-batch.js';
import { settlementAvailable } from '../../lib/events/settlement-target.js';
import { healthPartsOf, runHealthCanary } from '../../lib/jobs/health-canary.js';
import { pollSettlements } from '../../lib/jobs/poll-settlements.js';
import { runQueueBatch } from '../../lib/jobs/queue-batch.js';
import { runDueDispatch, runProviderScheduleSync, runReconcile } from '../../lib/jobs/scheduled.js';
import { runStatementTick } from '../../lib/jobs/statement-reconciliation.js';
import { runSubmissionBatch } from '../../lib/jobs/submission-batch.js';
import { startLocalUserPool } from '../../lib/local/cognito-local.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { LocalSqsQueue } from '../../lib/local/local-sqs-queue.js';
import { type LocalSqsEndpoint, serveLocalSqs } from '../../lib/local/sqs-endpoint.js';
import { stageConfigOf, submissionQueueSettings } from '../../lib/local/submission-workers.js';
import { notify } from '../../lib/notifications/index.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { runEndBookkeeperOf } from '../../lib/runtime/domain-event-runtime.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { notifierFromEnv } from '../../lib/runtime/notifier.js';
import { runMaterialiserOf } from '../../lib/runtime/payout-runs.js';
import { providerOf } from '../../lib/runtime/provider.js';
import { createRuntime, type Runtime } from '../../lib/runtime/runtime.js';
import {
  correctionJobsOf,
  providerSchedulesOf,
  recurrencesOf,
  refundsOf,
} from '../../lib/runtime/services.js';
import { settlementsOf } from '../../lib/runtime/settlements.js';
import { statementsOf } from '../../lib/runtime/statements.js';
import { submissionsOf } from '../../lib/runtime/submissions.js';
import { addSettlement, type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import type { PollReport } from '../../lib/settlement/index.js';
import { observeAwsCalls } from '../../lib/shared/aws-call-observer.js';
import { type Clock, ManualClock } from '../../lib/shared/clock.js';
import { ulid } from '../../lib/shared/ids.js';
import { CapturingLogger, silentLogger } from '../../lib/shared/logger.js';
import { dateIn } from '../../lib/statements/index.js';
import { bankTransfer, call, walletTopUp } from '../api/support/harness.js';
import { payoutRequested } from '../events/support.js';
import { createTestTable } from '../support/dynamodb.js';
import { proofOf, recordExercised } from '../support/iam/checked-calls.js';
import { IamDeniedError, type IamProof } from '../support/iam/iam-proof.js';
import { type ProofTemplate, proofTemplate } from '../support/iam/proof-template.js';
import { startSecretsManagerStub } from '../support/iam/secrets-manager-stub.js';
import { StackPolicies } from '../support/iam/stack-policies.js';
import { type CfnTemplate, TEST_REGION } from '../support/iam/template-resolver.js';
import { windowAwayFromNow } from '../support/settlement-hours.js';

/**
 * The IAM proof: every AWS SDK call each handler makes, checked against that handler's own role in the synthesized
 * template (identity policies plus the resource's policy) with a real IAM evaluator, before it is sent. The
 * handlers run end to end here against DynamoDB Local and the sandbox, each on a runtime built from its own
 * environment in the template, AWS mode for the secrets (answered by a local Secrets Manager stand-in).
 */
const present = presentHandlers();
let source: ProofTemplate;
let template: CfnTemplate;
let policies: StackPolicies;
let proof: IamProof;
let sandbox: Sandbox;
let table: Awaited<ReturnType<typeof createTestTable>>;
let secrets: Awaited<ReturnType<typeof startSecretsManagerStub>>;
const runtimes: Runtime[] = [];
const clients: { destroy(): void }[] = [];
const logger = new CapturingLogger();
/** The submission queue's local stand-in (SendMessageBatch on 127.0.0.1), and what it was given. */
let sqs: LocalSqsEndpoint;
let submissionQueue: LocalSqsQueue;
const enqueued: SQSEvent['Records'] = [];

/** A runtime as Lambda would build it for `name`: the template's environment, local endpoints swapped in. */
function runtimeFor(
  name: HandlerName,
  checker = proof,
  overrides: Record<string, string> = {},
  clock?: Clock,
): Runtime {
  const environment = { ...checker.identityOf(name).environment, ...overrides };
  const secretsManager = new SecretsManagerClient({ endpoint: secrets.endpoint, ...localAwsConfig });
  clients.push(secretsManager);
  const runtime = createRuntime(
    {
      ...environment,
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      PROVIDER_BASE_URL: sandbox.url,
    },
    {
      logger,
      awsCalls: { functionName: name, observer: checker.observer() },
      secretsManager,
      ...(clock && { clock }),
    },
  );
  runtimes.push(runtime);
  return runtime;
}

/**
 * One ops API function on a runtime as Lambda would build it for that function (`runtimeFor`): only its own
 * routes, on its own role. `api-docs` builds no runtime.
 */
function apiFunction(
  name: ApiFunctionName,
  checker = proof,
  overrides: Record<string, string> = {},
): ApiHandler {
  return name === 'api-docs'
    ? docsApiHandler({ OPS_API_ROLES: JSON.stringify({ 'payouts-dev-operator-viewer': ['viewer'] }) })
    : API_FUNCTIONS[name].routerOn(runtimeFor(name, checker, overrides));
}

/** The ops API as deployed: each request goes to the function API Gateway sends it to, on that function's role. */
function deployedApi(checker = proof, overrides: Record<string, string> = {}): ApiHandler {
  const functions = new Map<ApiFunctionName, ApiHandler>();
  return (event, invocation) => {
    const name = apiFunctionServing(event.requestContext.http.method, event.rawPath);
    let fn = functions.get(name);
    if (!fn) {
      fn = apiFunction(name, checker, overrides);
      functions.set(name, fn);
    }
    return fn(event, invocation);
  };
}

/**
 * A correction job of one row as the API stores it. The API's POST also enqueues through SQS, a signed fetch
 * the proof neither observes nor may send anywhere; the store's writes are what its role must allow.
 */
function correctionJob(bulkPayoutItemId: string): { job: CorrectionJob; items: JobItem[] } {
  const jobId = ulid();
  const at = new Date().toISOString();
  return {
    job: { jobId, total: 1, source: 'json', requestedBy: { id: 'alice', kind: 'user' }, createdAt: at },
    items: [
      {
        jobId,
        index: 0,
        bulkPayoutItemId,
        fields: { narration: 'iam proof' },
        correctionId: ulid(),
        status: 'queued',
        updatedAt: at,
      },
    ],
  };
}

/** Runs one piece of a handler's work; only an IAM denial is a failure of this suite. */
async function exercise(name: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof IamDeniedError) throw error;
    logger.warn('exercise ended with a non-IAM error', { name, error: String(error) });
  }
}

beforeAll(async () => {
  source = await proofTemplate();
  template = source.template;
  table = await createTestTable('iam');
  sandbox = await startSandbox();
  submissionQueue = new LocalSqsQueue({
    ...submissionQueueSettings(stageConfigOf('dev')),
    logger: silentLogger,
    consumer: async (event) => {
      enqueued.push(...event.Records);
      return { batchItemFailures: [] };
    },
  });
  sqs = await serveLocalSqs(submissionQueue, { port: 0, logger: silentLogger });
  policies = new StackPolicies(template);
  const tokenSecret = policies.resolver.ref(source.tokenSecret);
  const pinSecret = policies.resolver.ref(source.pinSecret);
  secrets = await startSecretsManagerStub(
    new Map([
      [tokenSecret, JSON.stringify({ token: sandbox.token })],
      [pinSecret, JSON.stringify({ pin: sandbox.pin })],
    ]),
  );
  proof = proofOf(source);
}, 180_000);

afterAll(async () => {
  if (proof) recordExercised(proof.exercised, 'iam-proof');
  await sqs?.close();
  await submissionQueue?.stop();
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  for (const client of clients) client.destroy();
  await secrets?.close();
  await sandbox?.close();
  table?.client.destroy();
});

// Each scenario runs a handler end to end; under a full parallel test run that takes a while.
describe('IAM proof: every call each handler makes is allowed by its own role', { timeout: 180_000 }, () => {
  it.skipIf(!present.includes('api-payouts'))(
    'api-payouts: payouts (bank and wallet), an approval, listings, controls',
    async () => {
      const api = apiFunction('api-payouts');
      const fixtures = sandbox.fixtures();
      const post = (path: string, body: unknown, key: string, principal = 'alice') =>
        call(api, { method: 'POST', path, body, principal, headers: { 'Idempotency-Key': key } });
      const paid = await post('/payouts', bankTransfer(), 'iam-bank');
      expect(paid.status).toBe(201);
      const wallet = await post('/payouts', walletTopUp(fixtures), 'iam-wallet');
      expect(wallet.status).toBe(201);
      // Metadata big enough that its approval's event moves its events off the payout item to an audit item.
      const large = await post(
        '/payouts',
        bankTransfer({
          amount: 20_000_000,
          metadata: { note: 'n'.repeat(200), ref: 'r'.repeat(200), memo: 'm'.repeat(200) },
        }),
        'iam-large',
      );
      expect(large.status).toBe(201);
      await exercise('approve', () => post(`/payouts/${large.body.id}/approve`, {}, 'iam-approve', 'bob'));
      for (const query of ['status=succeeded', 'from=2026-01-01T00:00:00Z&to=2027-12-31T00:00:00Z', '']) {
        await exercise(`list ${query}`, () =>
          call(api, { method: 'GET', path: '/payouts', query, principal: 'alice' }),
        );
      }
      await exercise('get', () =>
        call(api, { method: 'GET', path: `/payouts/${paid.body.id}`, principal: 'alice' }),
      );
      // Its events moved to an audit item, which reading its trail queries.
      for (const path of [`/payouts/${large.body.id}`, `/payouts/${large.body.id}/audit`]) {
        await exercise(`get ${path}`, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
      await exercise('/controls', () => call(api, { method: 'GET', path: '/controls', principal: 'alice' }));
      await exercise('pause', () => post('/controls/pause', { reason: 'iam proof' }, 'iam-pause'));
      await exercise('resume', () => post('/controls/resume', {}, 'iam-resume', 'bob'));
      // Its routes only: a refund is another function's.
      expect((await call(api, { method: 'GET', path: '/refunds', principal: 'alice' })).status).toBe(404);
    },
  );

  it.skipIf(!present.includes('api-operations'))(
    "api-operations: a refund, the provider's views, the deep health check",
    async () => {
      const api = apiFunction('api-operations');
      const post = (path: string, body: unknown, key: string, principal = 'alice') =>
        call(api, { method: 'POST', path, body, principal, headers: { 'Idempotency-Key': key } });
      const transaction = sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid >= 10);
      const refund = await post(
        '/refunds',
        { transactionId: transaction?.id, amount: 500, customerNote: 'c', merchantNote: 'm' },
        'iam-rf',
      );
      expect(refund.status).toBe(201);
      for (const path of ['/refunds', `/refunds/${refund.body.id}`]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
      for (const query of ['status=sent', 'status=pending_approval']) {
        await exercise(`refunds ${query}`, () =>
          call(api, { method: 'GET', path: '/refunds', query, principal: 'alice' }),
        );
      }
      for (const path of ['/provider/settlements', '/provider/stores', '/provider/wallet-transactions']) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
      const health = await call(api, {
        method: 'GET',
        path: '/health',
        query: 'deep=true',
        principal: 'alice',
      });
      expect(health.body.status).toBe('ok');
    },
  );

  it.skipIf(!present.includes('api-settlements'))(
    'api-settlements: an instant settlement asked for by a person and paid out at once, and the listings',
    async () => {
      // Instant settlement turned on before the sandbox's settlements, at every hour: this one is paid out.
      const api = apiFunction('api-settlements', proof, {
        SETTLEMENT_SINCE: '2020-01-01T00:00:00Z',
        SETTLEMENT_ALLOWED_HOURS: '00:00-24:00',
      });
      for (const query of ['', 'status=succeeded']) {
        await exercise(`instant settlements ${query}`, () =>
          call(api, { method: 'GET', path: '/instant-settlements', query, principal: 'alice' }),
        );
      }
      // The settlement to pay out, read from the provider's view on the role of the function serving it.
      const settlements = await providerOf(runtimeFor('api-operations')).settlements.list({
        status: 'SUCCESSFUL',
      });
      const merchantSettlement = settlements.items.find(
        (settlement) => settlement.category !== 'INSTANT_SETTLEMENT',
      );
      expect(merchantSettlement).toBeDefined();
      const settled = await call(api, {
        method: 'POST',
        path: '/instant-settlements',
        body: { settlementId: merchantSettlement?.id },
        principal: 'alice',
        headers: { 'Idempotency-Key': 'iam-instant' },
      });
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ outcome: 'paid' });
      for (const query of ['state=paid', 'state=deferred']) {
        await exercise(`instant settlements ${query}`, () =>
          call(api, { method: 'GET', path: '/instant-settlements', query, principal: 'alice' }),
        );
      }
      // Outside the allowed hours another one is deferred: its deferral recorded, conditional on no decision.
      const deferring = apiFunction('api-settlements', proof, {
        SETTLEMENT_SINCE: '2020-01-01T00:00:00Z',
        SETTLEMENT_ALLOWED_HOURS: windowAwayFromNow(),
      });
      const another = settlements.items.findLast(
        (settlement) =>
          settlement.category !== 'INSTANT_SETTLEMENT' && settlement.id !== merchantSettlement?.id,
      );
      const deferred = await call(deferring, {
        method: 'POST',
        path: '/instant-settlements',
        body: { settlementId: another?.id },
        principal: 'alice',
      });
      expect(deferred.status).toBe(202);
      await exercise('one decision', () =>
        call(api, {
          method: 'GET',
          path: `/instant-settlements/${merchantSettlement?.id}`,
          principal: 'alice',
        }),
      );
    },
  );

  it.skipIf(!present.includes('api-recurrences'))(
    "api-recurrences: a recurring payout, the provider's schedules, future payouts, the approvals queue",
    async () => {
      const api = apiFunction('api-recurrences');
      const created = await call(api, {
        method: 'POST',
        path: '/recurring-payouts',
        body: { ...bankTransfer(), interval: 'monthly', startDate: '2027-01-01', timeOfDay: '09:00' },
        principal: 'alice',
        headers: { 'Idempotency-Key': 'iam-rec' },
      });
      expect(created.status).toBe(201);
      // Its first occurrence skipped (recorded with UpdateItem, lib/recurrence/store/dynamodb-recurrence-store.ts).
      await exercise('skip', () =>
        call(api, {
          method: 'POST',
          path: `/recurring-payouts/${created.body.id}/occurrences/2027-01-01/skip`,
          body: { reason: 'iam proof' },
          principal: 'alice',
        }),
      );
      // Approved by a second person where it waits for one, then paused and resumed.
      for (const action of ['approve', 'pause', 'resume']) {
        await exercise(action, () =>
          call(api, {
            method: 'POST',
            path: `/recurring-payouts/${created.body.id}/${action}`,
            body: action === 'approve' ? {} : { reason: 'iam proof' },
            principal: action === 'pause' ? 'alice' : 'bob',
          }),
        );
      }
      for (const path of [
        '/recurring-payouts',
        `/recurring-payouts/${created.body.id}`,
        '/future-payouts',
        '/provider/scheduled-payouts',
        '/provider/recurrent-payouts',
        '/approvals',
      ]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
    },
  );

  it.skipIf(!present.includes('api-corrections'))(
    'api-corrections: a bulk item, its correction, correction jobs',
    async () => {
      const runtime = runtimeFor('api-corrections');
      const api = API_FUNCTIONS['api-corrections'].routerOn(runtime);
      const item = sandbox.fixtures().bulkPayoutItems.find((candidate) => !candidate.isValid);
      for (const path of ['/bulk-payout-items', `/bulk-payout-items/${item?.id}`]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
      const { job, items } = correctionJob(item?.id ?? '');
      await exercise('correction job stored', () =>
        new DynamoDbCorrectionJobStore(runtime.dynamoDb, runtime.tableName).create(job, items),
      );
      for (const path of [
        '/bulk-correction-jobs',
        `/bulk-correction-jobs/${job.jobId}`,
        `/bulk-correction-jobs/${job.jobId}/items`,
      ]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'alice' }));
      }
      await exercise('correction', () =>
        call(api, {
          method: 'PATCH',
          path: `/bulk-payout-items/${item?.id}`,
          body: { narration: 'iam proof correction' },
          principal: 'alice',
        }),
      );
      // A new destination for a valid item waits for a second person (listed by status), who sends it.
      const valid = sandbox.fixtures().bulkPayoutItems.find((candidate) => candidate.isValid);
      const held = await call(api, {
        method: 'PATCH',
        path: `/bulk-payout-items/${valid?.id}`,
        body: { accountNumber: '9999999999' },
        principal: 'alice',
      });
      expect(held.status).toBe(202);
      await exercise('held corrections', () =>
        call(api, { method: 'GET', path: '/bulk-payout-items', query: 'isValid=false', principal: 'bob' }),
      );
      const approved = await call(api, {
        method: 'POST',
        path: `/bulk-payout-items/${valid?.id}/corrections/${held.body.correction.correctionId}/approve`,
        principal: 'bob',
      });
      expect(approved.status).toBe(200);
    },
  );

  it.skipIf(!present.includes('api-dead-letters'))(
    'api-dead-letters: the list, and a replay that creates and submits a wallet payout',
    async () => {
      const api = apiFunction('api-dead-letters');
      for (const query of ['', 'status=open']) {
        await exercise(`/dead-letters ${query}`, () =>
          call(api, { method: 'GET', path: '/dead-letters', query, principal: 'alice' }),
        );
      }
      // A wallet payout refused by the Payout Requested handler under a lower limit (setup, on that function's
      // role), then replayed here: created and submitted at once, with the PIN.
      const refusing = runtimeFor('payout-requested', proof, { MAX_PAYOUT_KOBO: '1000' });
      const deliver = withDeadLetter(
        inboundEventHandlers({
          engine: payoutEngineOf(refusing),
          settlements: settlementsOf(refusing),
          logger,
        })['Payout Requested'],
        new DynamoDbDeadLetterStore(refusing.dynamoDb, refusing.tableName),
      );
      const fixtures = sandbox.fixtures();
      const refused = (await deliver(
        payoutRequested('evt-iam-replay', {
          version: '1',
          idempotencyKey: 'iam-replay',
          payout: {
            type: 'wallet_transfer',
            amount: 10_000,
            currency: 'NGN',
            narration: 'replayed wallet payout',
            sourceWalletId: fixtures.merchantWalletId,
            destinationWalletId: fixtures.stores[0]?.walletId,
          },
        }),
      )) as Partial<DeadLettered>;
      expect(refused.deadLettered).toBe(true);
      const replayed = await call(api, {
        method: 'POST',
        path: `/dead-letters/${refused.id}/replay`,
        principal: 'alice',
      });
      expect(replayed.body).toMatchObject({ delivered: true });
    },
  );

  it.skipIf(!present.includes('api-docs'))(
    'api-docs: the OpenAPI document and the 404 problem, without one AWS call',
    async () => {
      const before = proof.exercised.length;
      const api = apiFunction('api-docs');
      const reader = { iamUserArn: 'arn:aws:sts::123456789012:assumed-role/payouts-dev-operator-viewer/s' };
      expect((await call(api, { method: 'GET', path: '/openapi.json', ...reader })).status).toBe(200);
      expect((await call(api, { method: 'GET', path: '/no-such-route', ...reader })).status).toBe(404);
      expect(proof.exercised.slice(before).filter((request) => request.functionName === 'api-docs')).toEqual(
        [],
      );
    },
  );

  it.skipIf(!present.includes('api-operators'))(
    "api-operators: an admin lists, invites, grants (proposed, then confirmed by a second admin), revokes, disables and enables an operator of the pool (cognito-local on 127.0.0.1), each on the pool's ARN",
    async () => {
      const pool = await startLocalUserPool();
      try {
        const api = apiFunction('api-operators', proof, {
          OPS_OPERATOR_USER_POOL_ID: pool.userPoolId,
          COGNITO_ENDPOINT: pool.endpoint,
        });
        const as = (principal: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
          call(api, { method, path, principal, ...(body !== undefined && { body }) });
        const reason = 'iam proof';
        expect((await as('carol', 'GET', '/operators')).status).toBe(200);
        const invited = await as('carol', 'POST', '/operators', {
          username: 'iam-dave',
          email: 'iam-dave@payouts.local',
          groups: ['viewer'],
          reason,
        });
        expect(invited.status).toBe(201);
        const proposed = await as('carol', 'POST', '/operators/iam-dave/grant', {
          groups: ['approver'],
          reason,
        });
        expect(proposed.status).toBe(202);
        const proposalId = (proposed.body as { proposal: { id: string } }).proposal.id;
        const confirmed = await as('erin', 'POST', `/operators/iam-dave/proposals/${proposalId}/confirm`);
        expect(confirmed.status).toBe(200);
        expect(
          (await as('carol', 'POST', '/operators/iam-dave/revoke', { groups: ['approver'], reason })).status,
        ).toBe(200);
        expect((await as('carol', 'POST', '/operators/iam-dave/disable', { reason })).status).toBe(200);
        // Viewer only: enabled at once, its marker deleted.
        expect((await as('carol', 'POST', '/operators/iam-dave/enable', { reason })).status).toBe(200);
        expect((await as('carol', 'GET', '/operators/iam-dave')).status).toBe(200);
      } finally {
        await pool.stop();
      }
    },
  );

  it.skipIf(!present.includes('sweep-due-payouts'))(
    'sweep-due-payouts: recurrences, payouts, refunds, and the due payout handed to the submission queue (SQS stand-in on 127.0.0.1)',
    async () => {
      // Made through the API today: a payout due in three days, a weekly rule starting the day after tomorrow,
      // and a refund recorded while payouts were paused (so not sent: the sweeper sends it).
      const api = deployedApi();
      const post = (path: string, body: unknown, key: string, principal = 'alice') =>
        call(api, { method: 'POST', path, body, principal, headers: { 'Idempotency-Key': key } });
      const threeDays = 3 * 86_400_000;
      const lagosDay = (offsetDays: number) =>
        new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(
          new Date(Date.now() + offsetDays * 86_400_000),
        );
      const scheduled = await post(
        '/payouts',
        bankTransfer({ scheduleAt: new Date(Date.now() + threeDays - 60_000).toISOString() }),
        'iam-scheduled',
      );
      expect(scheduled.body.status).toBe('scheduled');
      const rule = await post(
        '/recurring-payouts',
        {
          ...bankTransfer({ narration: 'weekly wages' }),
          interval: 'weekly',
          startDate: lagosDay(2),
          timeOfDay: '09:00',
        },
        'iam-rule',
      );
      expect(rule.status).toBe(201);
      expect((await post('/controls/pause', { reason: 'iam proof sweep' }, 'iam-sweep-pause')).status).toBe(
        200,
      );
      const transaction = sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid >= 10);
      const refund = await post(
        '/refunds',
        { transactionId: transaction?.id, amount: 300, customerNote: 'c', merchantNote: 'm' },
        'iam-sweep-refund',
      );
      await post('/controls/resume', {}, 'iam-sweep-resume', 'bob');
      // The sweeper's tick three days later: the payout is due, the rule has an occurrence to materialise.
      const later = new ManualClock(new Date(Date.now() + threeDays));
      // The template's queue URL is AWS's; the signed SendMessageBatch goes to the stand-in instead.
      const sweeper = runtimeFor(
        'sweep-due-payouts',
        proof,
        { SUBMIT_QUEUE_URL: sqs.queueUrl, SQS_ENDPOINT: sqs.url },
        later,
      );
      const submissions = submissionsOf(sweeper);
      if (!submissions) throw new Error('sweep-due-payouts has no SUBMIT_QUEUE_URL in the template');
      // A payroll file accepted today: the tick turns its rows into payouts (reading the rows: Query on the table).
      const run = await call(api, {
        method: 'POST',
        path: '/payout-runs',
        headers: { 'content-type': 'text/csv', 'idempotency-key': 'iam-sweep-run' },
        body: 'reference,amount,bankCode,accountNumber,accountName,narration\nsweep-1,120000,058,0123456789,Ada Obi,June salary',
        principal: 'alice',
      });
      expect(run.status).toBe(202);
      const materialised = await runMaterialiserOf(sweeper).materialiseDue();
      expect(materialised).toMatchObject({ created: 1, completed: 1 });
      const report = await runDueDispatch(
        {
          engine: payoutSweeper(payoutEngineOf(sweeper)),
          recurrences: recurrencesOf(sweeper),
          refunds: refundsOf(sweeper),
          submissions,
        },
        60_000,
        { now: later.now().getTime() },
      );
      expect(report.recurrences.materialised).toBeGreaterThan(0);
      expect(report.payouts.released).toBeGreaterThan(0);
      expect({ refund: refund.body.status, sweep: report.refunds }).toMatchObject({ sweep: { answered: 1 } });
      const due = { payout: { id: scheduled.body.id as string } };
      expect(enqueued.map((record) => JSON.parse(record.body).payoutId)).toContain(due.payout.id);
      expect(
        proof.exercised.filter(
          (request) => request.functionName === 'sweep-due-payouts' && request.action === 'sqs:SendMessage',
        ),
      ).not.toEqual([]);
    },
  );

  it.skipIf(!present.includes('submit-payouts'))(
    'submit-payouts: a queued bank payout and a queued wallet payout (which carries the PIN)',
    async () => {
      const runtime = runtimeFor('submit-payouts');
      const fixtures = sandbox.fixtures();
      // Created pending on the API's role (the workers create no payout, and may write no idempotency record).
      const creator = payoutEngineOf(runtimeFor('api-payouts'));
      const created = await Promise.all([
        creator.create({
          request: bankTransfer({ narration: 'queued bank payout' }),
          idempotencyKey: 'iam-queued-bank',
          origin: 'api',
          actor: { id: 'alice', kind: 'user' },
        } as Parameters<Runtime['payouts']['create']>[0]),
        creator.create({
          request: {
            type: 'wallet_transfer',
            amount: 10_000,
            currency: 'NGN',
            narration: 'queued wallet payout',
            sourceWalletId: fixtures.merchantWalletId,
            destinationWalletId: fixtures.stores[0]?.walletId,
          },
          idempotencyKey: 'iam-queued-wallet',
          origin: 'api',
          actor: { id: 'alice', kind: 'user' },
        } as Parameters<Runtime['payouts']['create']>[0]),
      ]);
      const event = {
        Records: created.map(({ payout }, index) => ({
          messageId: `m-${index}`,
          receiptHandle: `r-${index}`,
          body: JSON.stringify({ payoutId: payout.id, version: payout.version }),
          attributes: { ApproximateReceiveCount: '1', MessageGroupId: payout.id },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:submissions.fifo',
          awsRegion: 'eu-west-1',
        })),
      } as unknown as SQSEvent;
      // A fresh invocation: the function's whole timeout left.
      const remainingMs = HANDLERS['submit-payouts'].timeout.toMilliseconds();
      const { response } = await runSubmissionBatch(payoutEngineOf(runtime), event, remainingMs, logger);
      expect(response.batchItemFailures).toEqual([]);
      // A correction job's row, stored as the API stores it (setup, outside the proof), worked by this worker.
      const bulkItem = fixtures.bulkPayoutItems.find((candidate) => candidate.isValid);
      const { job, items } = correctionJob(bulkItem?.id ?? '');
      await new DynamoDbCorrectionJobStore(table.client, table.tableName).create(job, items);
      const corrections = await runQueueBatch(
        {
          submit: () => Promise.reject(new Error('no payout here')),
          jobs: correctionJobsOf(runtime),
        },
        {
          Records: [
            {
              ...(event.Records[0] as SQSEvent['Records'][number]),
              messageId: 'm-correction',
              body: JSON.stringify({
                kind: 'bulk-correction',
                jobId: job.jobId,
                bulkPayoutItemId: bulkItem?.id,
                indexes: [0],
              }),
            },
          ],
        },
        remainingMs,
        logger,
      );
      expect(corrections.response.batchItemFailures).toEqual([]);
      expect(
        proof.exercised.some(
          (request) => request.functionName === 'submit-payouts' && request.action === 'kms:Decrypt',
        ),
      ).toBe(true);
    },
  );

  it.skipIf(!present.includes('reconcile-payouts'))(
    'reconcile-payouts: decides a payout left unknown',
    async () => {
      // A 500 after the request was sent leaves the payout unknown: the reconciler must look it up.
      sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500', times: 1 });
      const quick = { RECONCILE_INTERVAL_MS: '1', RECONCILE_GRACE_MS: '1' };
      const api = deployedApi(proof, quick);
      const sent = await call(api, {
        method: 'POST',
        path: '/payouts',
        body: bankTransfer({ amount: 333_300, narration: 'left unknown' }),
        principal: 'alice',
        headers: { 'Idempotency-Key': 'iam-unknown' },
      });
      expect(sent.body.status).toBe('unknown');
      const runtime = runtimeFor('reconcile-payouts', proof, {
        RECONCILE_INTERVAL_MS: '1',
        RECONCILE_GRACE_MS: '1',
      });
      // A fresh invocation: the reconciler's whole timeout left.
      const report = await runReconcile(
        payoutEngineOf(runtime),
        HANDLERS['reconcile-payouts'].timeout.toMilliseconds(),
      );
      expect(report).toBeDefined();
      // It looked the payout up at the provider, which needs the token.
      expect(
        proof.exercised.some(
          (request) =>
            request.functionName === 'reconcile-payouts' &&
            request.action === 'secretsmanager:GetSecretValue',
        ),
      ).toBe(true);
    },
  );

  /**
   * A settlement trigger's runtime as deployed, settlement turned on before the sandbox's settlements, allowed
   * at `allowedHours`. The template's queue URL is AWS's; the signed SendMessageBatch goes to the stand-in.
   */
  const settlementTriggerRuntime = (name: HandlerName, allowedHours: string) =>
    runtimeFor(name, proof, {
      SUBMIT_QUEUE_URL: sqs.queueUrl,
      SQS_ENDPOINT: sqs.url,
      SETTLEMENT_SINCE: '2020-01-01T00:00:00Z',
      SETTLEMENT_ALLOWED_HOURS: allowedHours,
    });
  const freshSettlement = () =>
    addSettlement(sandbox.url, { category: 'MERCHANT_SETTLEMENT', amountKobo: 250_000 });
  /** The function's own code on a `Settlement Available` for a fresh settlement. */
  const settlementEvent = async (runtime: Runtime, eventId: string) => {
    const settlementId = await freshSettlement();
    const outcome = await settlementAvailable(runtime, {
      version: '0',
      id: eventId,
      'detail-type': 'Settlement Available',
      source: 'merchant.payouts',
      account: '123456789012',
      time: new Date().toISOString(),
      region: TEST_REGION,
      resources: [],
      detail: { version: '1', settlementId },
    });
    return { settlementId, outcome };
  };

  it.skipIf(!present.includes('settlement-available'))(
    'settlement-available: a fresh settlement looked up and its payout handed to the workers',
    async () => {
      const runtime = settlementTriggerRuntime('settlement-available', '00:00-24:00');
      const { settlementId, outcome } = await settlementEvent(runtime, 'evt-iam-settlement');
      const decision = await settlementsOf(runtime)?.decision(settlementId);
      expect({ outcome, decision }).toMatchObject({ outcome: 'paid' });
      expect(enqueued.map((record) => JSON.parse(record.body).payoutId)).toContain(decision?.payoutId);
    },
  );

  it.skipIf(!present.includes('settlement-available'))(
    'settlement-available: a settlement outside the allowed hours, its deferral recorded while no decision exists',
    async () => {
      const runtime = settlementTriggerRuntime('settlement-available', windowAwayFromNow());
      const { settlementId, outcome } = await settlementEvent(runtime, 'evt-iam-settlement-deferred');
      expect(outcome).toBe('deferred');
      expect(await settlementsOf(runtime)?.deferral(settlementId)).toMatchObject({ settlementId });
    },
  );

  it.skipIf(!present.includes('poll-settlements'))(
    'poll-settlements: a settlement no event decided, its payout handed to the workers',
    async () => {
      const runtime = settlementTriggerRuntime('poll-settlements', '00:00-24:00');
      await freshSettlement();
      const report = (await pollSettlements(runtime, 240_000)) as PollReport;
      expect(report).toMatchObject({ failed: 0 });
      expect(report.handedOver).toBeGreaterThanOrEqual(1);
    },
  );

  it.skipIf(!present.includes('poll-settlements'))(
    'poll-settlements: a settlement outside the allowed hours, its deferral recorded while no decision exists',
    async () => {
      const runtime = settlementTriggerRuntime('poll-settlements', windowAwayFromNow());
      await freshSettlement();
      const report = (await pollSettlements(runtime, 240_000)) as PollReport;
      expect(report).toMatchObject({ failed: 0 });
      expect(report.deferred).toBeGreaterThanOrEqual(1);
    },
  );

  it.skipIf(!present.includes('payout-requested'))('payout-requested', async () => {
    const runtime = runtimeFor('payout-requested');
    const outcome = await handlePayoutRequested(payoutEngineOf(runtime), {
      version: '0',
      id: 'evt-iam-payout',
      'detail-type': 'Payout Requested',
      source: 'merchant.payouts',
      account: '123456789012',
      time: new Date().toISOString(),
      region: TEST_REGION,
      resources: [],
      detail: {
        version: '1',
        idempotencyKey: 'iam-event',
        payout: bankTransfer({ narration: 'event payout' }),
      },
    });
    expect(outcome).toBeDefined();
  });

  it.skipIf(!present.includes('health-canary'))(
    'health-canary: the deep check reads the controls item and the token secret',
    async () => {
      const runtime = runtimeFor('health-canary');
      const health = await runHealthCanary(
        healthPartsOf(runtime),
        payoutEngineOf(runtime).ctx.metrics,
        logger,
      );
      expect(health.status).toBe('ok');
    },
  );

  it.skipIf(!present.includes('api-payout-runs'))(
    'api-payout-runs: a file accepted, the runs listed, one read with its rows and results, then cancelled',
    async () => {
      const api = apiFunction('api-payout-runs');
      const created = await call(api, {
        method: 'POST',
        path: '/payout-runs',
        headers: { 'content-type': 'text/csv', 'idempotency-key': 'iam-run' },
        body: [
          'reference,amount,bankCode,accountNumber,accountName,narration',
          'iam-1,150000,058,0123456789,Ada Obi,June salary',
          'iam-2,160000,044,0987654321,Bola Ade,June salary',
        ].join('\n'),
        principal: 'alice',
      });
      expect(created.status).toBe(202);
      const runId: string = created.body.runId;
      // Waiting for a second person (gsi1, by state), then every run (gsi2).
      await exercise('pending', () =>
        call(api, {
          method: 'GET',
          path: '/payout-runs',
          query: 'state=pending_approval',
          principal: 'carol',
        }),
      );
      for (const path of [
        '/payout-runs',
        `/payout-runs/${runId}`,
        `/payout-runs/${runId}/payouts`,
        `/payout-runs/${runId}/results.csv`,
      ]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'carol' }));
      }
      const cancelled = await call(api, {
        method: 'POST',
        path: `/payout-runs/${runId}/cancel`,
        body: { reason: 'iam proof' },
        principal: 'alice',
      });
      expect(cancelled.status).toBe(200);
    },
  );

  it.skipIf(!present.includes('api-statements'))(
    "api-statements: a person's re-run of today, the reports, a report, its lines and their CSV, the payouts export",
    async () => {
      const api = apiFunction('api-statements', proof);
      const today = dateIn(new Date(), 'Africa/Lagos');
      const run = await call(api, {
        method: 'POST',
        path: `/statements/${today}/run`,
        body: {},
        principal: 'carol',
      });
      expect(run.status).toBe(200);
      for (const path of [
        '/statements',
        `/statements/${today}`,
        `/statements/${today}/lines`,
        `/statements/${today}/lines.csv`,
      ]) {
        await exercise(path, () => call(api, { method: 'GET', path, principal: 'carol' }));
      }
      // The books' export reads the month index (gsi2) for the days asked, never the table as a whole: today's
      // payouts, which the API's scenario above made.
      const exported = await call(api, {
        method: 'GET',
        path: '/payouts/export.csv',
        query: `from=${today}&to=${today}`,
        principal: 'carol',
      });
      expect(exported.status).toBe(200);
      expect(String(exported.body).trim().split('\n').length).toBeGreaterThan(1);
    },
  );

  it.skipIf(!present.includes('reconcile-statements'))(
    "reconcile-statements: today's payouts against the provider's records, lines and report written",
    async () => {
      const runtime = runtimeFor('reconcile-statements');
      const today = dateIn(new Date(), 'Africa/Lagos');
      const report = await statementsOf(runtime).run(today, 'system:statements', {
        stopStartingAt: Date.now() + 60_000,
      });
      expect(report.completeness).toBe('complete');
      expect(report.byKind.matched.count).toBeGreaterThan(0);
      // The schedule's own tick: the day before, which it reports (or finds reported).
      await exercise('tick', () => runStatementTick(runtime, 600_000));
    },
  );

  it.skipIf(!present.includes('sync-provider-schedules'))('sync-provider-schedules', async () => {
    const runtime = runtimeFor('sync-provider-schedules');
    const service = providerSchedulesOf(runtime);
    await runProviderScheduleSync(service, providerOf(runtime).payouts);
  });

  it.skipIf(!present.includes('publish-domain-events'))('publish-domain-events', async () => {
    const name = 'publish-domain-events';
    const environment = proof.identityOf(name).environment;
    const busName = environment.EVENT_BUS_NAME ?? '';
    const client = new EventBridgeClient({
      endpoint: 'http://127.0.0.1:9',
      ...localAwsConfig,
      maxAttempts: 1,
    });
    clients.push(client);
    observeAwsCalls(client, name, proof.observer());
    // A real payout item, as the stream would carry it when the API's payout succeeded.
    const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.tableName }));
    const succeeded = Items.find((item) => item.entity?.S === 'payout' && item.status?.S === 'succeeded');
    expect(succeeded).toBeDefined();
    await exercise('publish', () =>
      publishStreamBatch(
        [
          {
            eventName: 'MODIFY',
            dynamodb: {
              SequenceNumber: '1',
              OldImage: { ...succeeded, status: { S: 'submitting' } },
              NewImage: succeeded,
            },
          },
        ] as Parameters<typeof publishStreamBatch>[0],
        new EventBridgePublisher(client, busName),
        logger,
      ),
    );
    // The payout runs' bookkeeping (lib/payout-runs/run-ends.ts): a run cancelled with a row that never became a
    // payout reads its rows (Query) and counts the row `cancelled_unsent` (marker Put, run Update, row ConditionCheck).
    const runId = '01JZ1AMPR00F0000000000000A';
    const runItem = {
      pk: `PAYOUT_RUN#${runId}`,
      sk: 'RUN',
      entity: 'payout-run',
      runId,
      state: 'cancelled',
      count: 1,
      totalKobo: 5_000,
      largestRows: [],
      fileSha256: 'f'.repeat(64),
      contentFingerprint: 'c'.repeat(64),
      source: 'csv',
      requestedBy: { id: 'alice', kind: 'user' },
      createdAt: '2030-06-01T00:00:00.000Z',
      updatedAt: '2030-06-01T00:00:00.000Z',
      materialised: 0,
    };
    const row = {
      pk: `PAYOUT_RUN#${runId}`,
      sk: 'ROW#00000',
      entity: 'payout-run-row',
      runId,
      index: 0,
      reference: 'iam-1',
      amountKobo: 5_000,
      beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
      narration: 'June salary',
    };
    for (const item of [runItem, row]) {
      await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: marshall(item) }));
    }
    const runtime = runtimeFor(name);
    await exercise('run ends', () =>
      runEndBookkeeperOf(runtime.dynamoDb, runtime.tableName, logger).onRecord({
        eventName: 'MODIFY',
        dynamodb: {
          NewImage: marshall(runItem),
          OldImage: marshall({ ...runItem, state: 'materialising' }),
        },
      }),
    );
  });

  it.skipIf(!present.includes('notify-approvers'))('notify-approvers', async () => {
    const name = 'notify-approvers';
    // Its delivery markers on the observed table client. The topic and the webhook are left out: SNS Publish is a
    // signed POST the proof does not observe (its grant is justified in infra/handlers.ts), and nothing here may
    // leave this machine.
    const {
      NOTIFY_TOPIC_ARN: _topic,
      NOTIFY_WEBHOOK_SECRET_ID: _secret,
      ...environment
    } = proof.identityOf(name).environment;
    const notifier = notifierFromEnv(
      { ...environment, TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: table.endpoint },
      { logger, awsCalls: { functionName: name, observer: proof.observer() } },
    );
    try {
      const event = {
        'detail-type': 'Payout Needs Review',
        detail: {
          eventId: 'iam-proof:1',
          payoutId: 'iam-proof',
          amountKobo: 100,
          failure: { code: 'UNKNOWN' },
        },
      };
      await exercise('notify', () => notify(notifier, event));
      await exercise('notify again', () => notify(notifier, event));
    } finally {
      notifier.close();
    }
  });

  it('lets AWS make the calls it makes for the stack: schedules, rules, DLQs, the stream mapping, the API', async () => {
    expect(await proof.checkPlatform()).toEqual([]);
    // The schedules' roles: granted only what the platform calls above use (invoke one function, fill one DLQ),
    // and the Scheduler target's grant on that function's versions (`<arn>:*`, which the schedule never names;
    // acknowledged for cdk-nag in infra/constructs/scheduling.ts).
    const roles = proof.unusedRoleGrants();
    console.log(`IAM proof: schedule roles, granted, never used:\n${JSON.stringify(roles, null, 2)}`);
    expect(Object.keys(roles).length).toBeGreaterThan(0);
    const versionsGrant = /^lambda:InvokeFunction on arn:aws:lambda:\S+:\*$/;
    for (const [role, unused] of Object.entries(roles)) {
      expect({ role, unused: unused.filter((grant) => !versionsGrant.test(grant)) }).toEqual({
        role,
        unused: [],
      });
    }
  });

  it('found no call any role would refuse', () => {
    expect(proof.denials).toEqual([]);
  });

  it('leaves no grant unexercised unless infra/handlers.ts says why, and no stale reason', () => {
    const report = proof.unusedGrants(present);
    console.log(`IAM proof: granted, never exercised:\n${JSON.stringify(report, null, 2)}`);
    for (const name of present) {
      const spec: HandlerSpec = HANDLERS[name];
      const justified = spec.unexercisedGrants ?? {};
      const unused = [...new Set((report[name] ?? []).map((grant) => grant.split(' on ')[0] ?? grant))];
      expect({ name, unjustified: unused.filter((action) => !(action in justified)) }).toEqual({
        name,
        unjustified: [],
      });
      expect({ name, stale: Object.keys(justified).filter((action) => !unused.includes(action)) }).toEqual({
        name,
        stale: [],
      });
    }
  });
});

describe('IAM proof: it can fail', { timeout: 120_000 }, () => {
  it('names the function, call, action and resource when a grant is removed from the template', async () => {
    // A grant the proof once found missing: without BatchWriteItem the provider-schedule sync is refused.
    const without = structuredClone(template);
    for (const resource of Object.values(without.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const document = resource.Properties?.PolicyDocument as { Statement: { Action: unknown }[] };
      for (const statement of document.Statement) {
        if (Array.isArray(statement.Action)) {
          statement.Action = statement.Action.filter((action) => action !== 'dynamodb:BatchWriteItem');
        }
      }
    }
    const strict = proofOf(source, without);
    const runtime = runtimeFor('sync-provider-schedules', strict);
    const service = providerSchedulesOf(runtime);
    const error = await runProviderScheduleSync(service, providerOf(runtime).payouts).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(IamDeniedError);
    const tableArn = policies.resolver.getAtt(source.table, 'Arn');
    expect(String(error)).toContain(
      `AccessDeniedException: sync-provider-schedules: BatchWriteItemCommand needs dynamodb:BatchWriteItem on ${tableArn} ({"dynamodb:LeadingKeys":["PROVIDER_SCHEDULE#`,
    );
    expect(String(error)).toMatch(/: ImplicitlyDenied$/);
  });

  it('refuses merchant.payouts events to the publisher, and the PIN to a function that sends no money', async () => {
    const publisher = proof.identityOf('publish-domain-events');
    const busArn = policies.resolver.getAtt(source.bus, 'Arn');
    const put = (source: string) => ({
      action: 'events:PutEvents',
      resource: busArn,
      context: { 'events:source': [source], 'events:detail-type': ['Payout Requested'] },
    });
    expect(await policies.evaluate(publisher, put('merchant.payouts.engine'))).toMatchObject({
      allowed: true,
    });
    expect(await policies.evaluate(publisher, put('merchant.payouts'))).toMatchObject({ allowed: false });
    // Even a role whose own policy allows every PutEvents is refused the inbound source by the bus policy.
    const anyone = {
      roleArn: 'arn:aws:iam::123456789012:role/admin',
      identityPolicies: [
        {
          name: 'all',
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow' as const, Action: '*', Resource: '*' }],
          },
        },
      ],
    };
    expect(await policies.evaluate(anyone, put('merchant.payouts'))).toMatchObject({
      result: 'ExplicitlyDenied',
    });
    expect(await policies.evaluate(anyone, put('merchant.payouts.engine'))).toMatchObject({
      result: 'ExplicitlyDenied',
    });

    const pinSecret = policies.resolver.ref(source.pinSecret);
    const read = { action: 'secretsmanager:GetSecretValue', resource: pinSecret, context: {} };
    expect(await policies.evaluate(proof.identityOf('submit-payouts'), read)).toMatchObject({
      allowed: true,
    });
    for (const name of [
      // It hands payouts to the submission queue; the workers send them.
      'sweep-due-payouts',
      'reconcile-payouts',
      'poll-settlements',
      'settlement-available',
      'sync-provider-schedules',
    ] as const) {
      expect({ name, ...(await policies.evaluate(proof.identityOf(name), read)) }).toMatchObject({
        name,
        allowed: false,
      });
    }
    expect(await policies.evaluate(anyone, read)).toMatchObject({ result: 'ExplicitlyDenied' });
  });

  /** A write as the recorder (lib/local/aws-call-recorder.ts) keeps it, checked on a proof of its own. */
  const recordedWrite = (functionName: string, command: string, input: Record<string, unknown>) => ({
    functionName,
    client: 'DynamoDBDocumentClient',
    command,
    input: { TableName: table.tableName, ...input },
  });
  const verdictOn = (checker: IamProof, call: ReturnType<typeof recordedWrite>) =>
    checker.check(call).then(
      () => 'allowed',
      (error: unknown) => (error instanceof IamDeniedError ? error.message : Promise.reject(error)),
    );

  it('refuses the schedule sync writing the controls item or a payout, which only the key of its own copy allows', async () => {
    const checker = proofOf(source);
    const schedule = { pk: 'PROVIDER_SCHEDULE#scheduled#s-1', sk: 'PROVIDER_SCHEDULE' };
    const controls = { pk: 'CONTROL', sk: 'GLOBAL', paused: false };
    const payout = { pk: 'PAYOUT#01J0000000000000000000000', sk: 'PAYOUT', status: 'succeeded' };
    const sync = (command: string, input: Record<string, unknown>) =>
      verdictOn(checker, recordedWrite('sync-provider-schedules', command, input));
    const batch = (...items: Record<string, unknown>[]) => ({
      RequestItems: { [table.tableName]: items.map((Item) => ({ PutRequest: { Item } })) },
    });
    expect(await sync('PutCommand', { Item: schedule })).toBe('allowed');
    expect(await sync('BatchWriteCommand', batch(schedule))).toBe('allowed');
    expect(await sync('PutCommand', { Item: controls })).toMatch(
      /^sync-provider-schedules: PutCommand needs dynamodb:PutItem on \S+ \({"dynamodb:LeadingKeys":\["CONTROL"\]}\): ImplicitlyDenied$/,
    );
    expect(await sync('PutCommand', { Item: payout })).toMatch(/ImplicitlyDenied$/);
    // One foreign item among its own is enough: every key of a BatchWriteItem must match (ForAllValues).
    expect(await sync('BatchWriteCommand', batch(schedule, payout))).toMatch(/ImplicitlyDenied$/);
  });

  it('lets only the function serving the controls write the controls item, and each function only its own kinds of item', async () => {
    const checker = proofOf(source);
    const pause = { Item: { pk: 'CONTROL', sk: 'GLOBAL', paused: true } };
    const verdicts = async (input: Record<string, unknown>, command = 'PutCommand') =>
      Object.fromEntries(
        await Promise.all(
          present
            .filter((name) => 'table' in HANDLERS[name])
            .map(async (name) => [name, await verdictOn(checker, recordedWrite(name, command, input))]),
        ),
      );
    const allowedTo = (verdict: Record<string, string>) =>
      Object.keys(verdict).filter((name) => verdict[name] === 'allowed');
    expect(allowedTo(await verdicts(pause))).toEqual(['api-payouts']);
    // A cap counter: only functions that claim or release payouts, refunds or bulk corrections.
    const cap = { Key: { pk: 'CAP#daily#2026-03-02', sk: 'CAP' }, UpdateExpression: 'ADD totalKobo :d' };
    expect(allowedTo(await verdicts(cap, 'UpdateCommand')).sort()).toEqual(
      [
        'api-payouts',
        'api-operations',
        'api-corrections',
        'api-settlements',
        'api-dead-letters',
        'sweep-due-payouts',
        'submit-payouts',
        'reconcile-payouts',
        'payout-requested',
        // A payout a statement finds paid twice counts on the cap again.
        'api-statements',
        'reconcile-statements',
      ]
        .filter((name) => present.includes(name as HandlerName))
        .sort(),
    );
    // An idempotency record of another origin than the function's own: a payout "created by the API" from an event.
    const apiKey = { Item: { pk: 'IDEMPOTENCY#api#k-1', sk: 'IDEMPOTENCY' } };
    expect(allowedTo(await verdicts(apiKey))).toEqual(['api-payouts']);
  });

  it('refuses the token to every role that does not call the provider, and to any other principal of the account', async () => {
    const tokenSecret = policies.resolver.ref(source.tokenSecret);
    const tokenKey = policies.secretKeys.get(tokenSecret);
    expect(tokenKey).toBeDefined();
    const read = { action: 'secretsmanager:GetSecretValue', resource: tokenSecret, context: {} };
    const decrypt = {
      action: 'kms:Decrypt',
      resource: tokenKey ?? '',
      context: { 'kms:ViaService': `secretsmanager.${TEST_REGION}.amazonaws.com` },
    };
    // A read-only operator's role, allowed every read of any secret and key by its own policy.
    const readOnly = {
      roleArn: 'arn:aws:iam::123456789012:role/read-only-ops',
      identityPolicies: [
        {
          name: 'read-everything',
          policy: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow' as const,
                Action: ['secretsmanager:GetSecretValue', 'kms:Decrypt', 'dynamodb:GetItem'],
                Resource: '*',
              },
            ],
          },
        },
      ],
    };
    expect(await policies.evaluate(readOnly, read)).toMatchObject({ result: 'ExplicitlyDenied' });
    expect(await policies.evaluate(readOnly, decrypt)).toMatchObject({ result: 'ExplicitlyDenied' });
    for (const name of present.filter((candidate) => HANDLERS[candidate].provider === ProviderAccess.None)) {
      expect({ name, ...(await policies.evaluate(proof.identityOf(name), read)) }).toMatchObject({
        name,
        allowed: false,
      });
    }
    // A function that only reads the table but calls a provider read endpoint (the deep health check) needs it.
    for (const name of ['health-canary', 'reconcile-payouts'] as const) {
      const identity = proof.identityOf(name);
      expect({ name, ...(await policies.evaluate(identity, read)) }).toMatchObject({ name, allowed: true });
      expect({ name, ...(await policies.evaluate(identity, decrypt)) }).toMatchObject({
        name,
        allowed: true,
      });
    }
  });
});
