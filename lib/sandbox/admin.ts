/** Sandbox-only admin paths under `/__sandbox/` (no auth, not part of the provider interface). */
import { notFound } from './errors.js';
import { type FaultQueue, parseFaultSpec } from './faults.js';
import type { Reply, SandboxRequest } from './http.js';
import type { SandboxState } from './state.js';
import { fixturesOf, ledgerOf } from './views.js';

export interface AdminTarget {
  state(): SandboxState;
  readonly faults: FaultQueue;
  stats(): { requests: Record<string, number> };
  reset(): void;
}

const json = (body: unknown): Reply => ({ status: 200, body });

export function handleAdmin(req: SandboxRequest, target: AdminTarget): Reply {
  const route = `${req.method} ${req.path}`;
  switch (route) {
    case 'GET /__sandbox/fixtures':
      return json(fixturesOf(target.state()));
    case 'GET /__sandbox/ledger':
      return json(ledgerOf(target.state()));
    case 'GET /__sandbox/stats':
      return json(target.stats());
    case 'GET /__sandbox/faults':
      return json({ faults: target.faults.pending() });
    case 'POST /__sandbox/faults': {
      const spec = parseFaultSpec(req.body);
      target.faults.add(spec);
      return json({ status: true, fault: spec, pending: target.faults.pending().length });
    }
    case 'DELETE /__sandbox/faults':
      target.faults.clear();
      return json({ status: true });
    case 'POST /__sandbox/reset':
      target.reset();
      return json({ status: true });
    default:
      throw notFound(`no sandbox admin route ${route}`);
  }
}
