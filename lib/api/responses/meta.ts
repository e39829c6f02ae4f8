import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

const check = z.lazy(() =>
  z.union([
    z.object({ status: z.literal('ok') }),
    z.object({
      status: z.literal('failed'),
      detail: field.upTo(FIELD_MAXIMA.text).check(z.describe('what to look at')),
    }),
  ]),
);

export const HealthResponseSchema = z.lazy(() =>
  z.union([
    z.object({ status: z.literal('ok') }).check(z.describe('the cheap check')),
    z.object({ status: z.literal('ok'), checks: z.object({ table: check, provider: check }) }),
  ]),
);

export const DeepHealthFailedSchema = z.lazy(() =>
  z.object({
    status: z.literal('failed'),
    checks: z.object({ table: check, provider: check }),
  }),
);

export const OpenApiDocumentSchema = z.lazy(() =>
  z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  }),
);
