import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8 exposes `gc` to contexts created after the flag is set: a test can force collections without starting
// node with --expose-gc.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Runs `work` while collecting garbage every 2 ms: what a deadline must survive (Node collects a timeout signal
 * nobody holds, and its timer with it; lib/shared/deadline.ts).
 */
export async function underCollections<T>(work: () => Promise<T>): Promise<T> {
  const collecting = setInterval(collectGarbage, 2);
  try {
    return await work();
  } finally {
    clearInterval(collecting);
  }
}
