import { errorKind } from '../shared/errors.js';

/** The deployment has no queue to hand correction jobs to (no SUBMIT_QUEUE_URL): nothing was stored. */
export class CorrectionJobsNotConfiguredError extends /* @__PURE__ */ errorKind(
  'CorrectionJobsNotConfiguredError',
  'NOT_CONFIGURED',
) {
  constructor() {
    super('correction jobs need the submission queue (SUBMIT_QUEUE_URL); nothing was stored');
  }
}

/** The job was stored but the queue refused some of its work: the sweeper hands it over (or `POST …/requeue` at once). */
export class CorrectionJobNotEnqueuedError extends /* @__PURE__ */ errorKind(
  'CorrectionJobNotEnqueuedError',
  'NOT_ENQUEUED',
) {
  constructor(
    readonly jobId: string,
    options?: ErrorOptions,
  ) {
    super(
      `job ${jobId} is stored, but the queue did not take all of its work yet; the sweeper hands it over within minutes, or POST /bulk-correction-jobs/${jobId}/requeue does now (nothing is sent twice)`,
      options,
    );
  }
}
