import { AsyncLocalStorage } from 'node:async_hooks';

const serving = new AsyncLocalStorage<string>();

/**
 * Runs `work` as the function that would serve it in AWS (`api-payouts`, `sweep-due-payouts`, `submit-payouts`, ...),
 * so that where one process hosts them all (`npm start`, the local end-to-end tests) each AWS call can still
 * be told apart by the function that made it (the IAM proof, docs/iam-proof.md). The name follows the work
 * through every `await` it makes.
 *
 * @example await servedBy('reconcile-payouts', () => runReconcile(payoutEngineOf(runtime)));
 */
export function servedBy<T>(functionName: string, work: () => T): T {
  return serving.run(functionName, work);
}

/** The function the current work is served by, if it runs inside `servedBy`. */
export function servingFunction(): string | undefined {
  return serving.getStore();
}
