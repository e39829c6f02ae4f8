import { presentControls } from '../presenters.js';
import { parseBody } from '../request.js';
import type { Route, RouteRequest } from '../router.js';
import { PauseRequestSchema, ResumeRequestSchema } from '../schemas.js';

async function pause(request: RouteRequest) {
  const body = parseBody(request.event, PauseRequestSchema);
  return {
    status: 200,
    body: presentControls(await request.ctx.engine.pause(request.principal(), body.reason)),
  };
}

async function resume(request: RouteRequest) {
  const body = parseBody(request.event, ResumeRequestSchema, {});
  return {
    status: 200,
    body: presentControls(await request.ctx.engine.resume(request.principal(), body.reason)),
  };
}

async function getControls(request: RouteRequest) {
  return { status: 200, body: presentControls(await request.ctx.engine.controls()) };
}

export const controlRoutes: readonly Route[] = [
  { method: 'POST', path: '/controls/pause', handler: pause },
  { method: 'POST', path: '/controls/resume', handler: resume },
  { method: 'GET', path: '/controls', handler: getControls },
];
