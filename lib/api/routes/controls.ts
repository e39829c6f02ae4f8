import { MAIN_WALLET_CAP_COUNTER } from '../../controls/index.js';
import { pausePayouts, resumePayouts } from '../../payouts/index.js';
import { calendarDayIn } from '../../shared/wall-clock.js';
import { presentControls } from '../presenters.js';
import { parseBody } from '../request.js';
import { ControlsResponseSchema, ControlsStateResponseSchema } from '../responses/payout.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PauseRequestSchema, ResumeRequestSchema } from '../schemas.js';

async function pause(request: RouteRequest<'payouts'>) {
  const body = parseBody(request.event, PauseRequestSchema);
  return reply(
    200,
    presentControls(await pausePayouts(request.ctx.payouts.ctx, request.principal(), body.reason)),
  );
}

async function resume(request: RouteRequest<'payouts'>) {
  const body = parseBody(request.event, ResumeRequestSchema, {});
  return reply(
    200,
    presentControls(await resumePayouts(request.ctx.payouts.ctx, request.principal(), body.reason)),
  );
}

/** The pause, the limits the gate applies now, and the main wallet's use of today's cap (what the console shows). */
async function getControls(request: RouteRequest<'payouts'>) {
  const { ctx } = request.ctx.payouts;
  const day = calendarDayIn(ctx.config.capTimeZone, ctx.clock.now());
  const [controls, mainWalletUsedKobo] = await Promise.all([
    request.ctx.payouts.controls(),
    ctx.store.getCapUsage(MAIN_WALLET_CAP_COUNTER, day),
  ]);
  return reply(200, {
    ...presentControls(controls),
    limits: {
      maxInstructionKobo: ctx.config.maxInstructionKobo,
      approvalThresholdKobo: ctx.config.approvalThresholdKobo,
      ...(ctx.config.secondApprovalThresholdKobo !== undefined && {
        secondApprovalThresholdKobo: ctx.config.secondApprovalThresholdKobo,
      }),
      dailyCapKobo: ctx.config.dailyCapKobo,
    },
    dailyCap: { day, timeZone: ctx.config.capTimeZone, mainWalletUsedKobo },
  });
}

const controls = (description: string) => ({ 200: { description, schema: ControlsResponseSchema } });

export const controlRoutes: readonly Route<Answers, 'payouts'>[] = [
  route({
    method: 'POST',
    path: '/controls/pause',
    operationId: 'pausePayouts',
    summary: 'Stop all submissions until resumed',
    request: { body: { schema: PauseRequestSchema } },
    cli: { words: ['controls', 'pause'], summary: 'pause every submission', bodyFlags: ['reason'] },
    role: 'admin',
    responses: controls('paused'),
    problems: ['validation', 'unauthenticated'],
    handler: pause,
  }),
  route({
    method: 'POST',
    path: '/controls/resume',
    operationId: 'resumePayouts',
    request: { body: { schema: ResumeRequestSchema, required: false } },
    cli: { words: ['controls', 'resume'], summary: 'resume submissions', bodyFlags: ['reason'] },
    role: 'admin',
    responses: controls('resumed'),
    problems: ['validation', 'unauthenticated'],
    handler: resume,
  }),
  route({
    method: 'GET',
    path: '/controls',
    operationId: 'getControls',
    cli: { words: ['controls', 'show'], summary: 'whether payouts are paused' },
    role: 'viewer',
    responses: { 200: { description: 'the controls in force', schema: ControlsStateResponseSchema } },
    problems: [],
    handler: getControls,
  }),
];
