import { afterAll, expect } from 'vitest';
import { recordExercised, usedProof } from './checked-calls.js';

/**
 * Runs with every test file (vitest `setupFiles`): after a file whose runtimes were checked by the IAM proof
 * (`iamChecked`), fails the file on any call a function's role would refuse, naming the function, the call, the
 * action and the resource, even where the code under test caught the AccessDenied; and leaves the requests seen
 * for the run's unused-grant report.
 */
afterAll(async () => {
  const pending = usedProof();
  if (!pending) return;
  const proof = await pending;
  recordExercised(proof.exercised, expect.getState().testPath ?? 'unknown');
  if (proof.denials.length > 0) {
    throw new Error(
      `IAM proof: ${proof.denials.length} call(s) the functions' own roles would refuse:\n${[
        ...new Set(proof.denials),
      ].join('\n')}`,
    );
  }
});
