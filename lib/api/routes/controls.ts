import { pausePayouts, resumePayouts } from '../../payouts/engine/controls.js';
import { presentControls } from '../presenters.js';
import { parseBody } from '../request.js';
import { ControlsResponseSchema } from '../responses/payout.js';
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

async function getControls(request: RouteRequest<'payouts'>) {
  return reply(200, presentControls(await request.ctx.payouts.controls()));
}

const controls = (description: string) => ({ 200: { description, schema: ControlsResponseSchema } });

export const controlRoutes: readonly Route<Answers, 'payouts'>[] = [
  route({
    method: 'POST',
    path: '/controls/pause',
    role: 'admin',
    responses: controls('paused'),
    problems: ['validation', 'unauthenticated'],
    handler: pause,
  }),
  route({
    method: 'POST',
    path: '/controls/resume',
    role: 'admin',
    responses: controls('resumed'),
    problems: ['validation', 'unauthenticated'],
    handler: resume,
  }),
  route({
    method: 'GET',
    path: '/controls',
    role: 'viewer',
    responses: controls('the controls'),
    problems: [],
    handler: getControls,
  }),
];
