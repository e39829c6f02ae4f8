/**
 * The HTTP server: authentication, fault injection, latency, routing and error mapping around the route handlers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { handleAdmin } from './admin.js';
import { ADMIN_PREFIX, RETRY_AFTER_SECONDS } from './contract.js';
import { HttpError } from './errors.js';
import { FaultQueue, type FaultSpec, RateWindow } from './faults.js';
import type { FeeTable } from './fees.js';
import {
  errorReply,
  pathOf,
  type Reply,
  readBody,
  type SandboxRequest,
  toSandboxRequest,
  writeReply,
} from './http.js';
import { MarkedRequests } from './marked-requests.js';
import type { Route, RouteContext } from './route.js';
import { providerRoutes } from './routes/index.js';
import { seedState } from './seed.js';
import type { SandboxState } from './state.js';

export interface ServerOptions {
  readonly token: string;
  readonly pin: string;
  readonly latencyMs: number;
  readonly fees: FeeTable;
  readonly now: () => Date;
}

const routesByPath = new Map<string, Route[]>();
for (const route of providerRoutes)
  routesByPath.set(route.path, [...(routesByPath.get(route.path) ?? []), route]);

export class SandboxServer {
  readonly faults = new FaultQueue();
  /** Provider requests whose body carries a payout marker, with their arrival time. */
  readonly markedRequests = new MarkedRequests();
  private current: SandboxState = seedState();
  private requests: Record<string, number> = {};
  private rateWindow = new RateWindow();
  /** Requests a `rate-limit` fault answered with 429. */
  private rateLimited = 0;
  private readonly server: Server;

  constructor(private readonly options: ServerOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          writeReply(res, errorReply(500, `sandbox failure: ${(error as Error).message}`));
      });
    });
  }

  state(): SandboxState {
    return this.current;
  }

  now(): Date {
    return this.options.now();
  }

  stats(): { requests: Record<string, number>; rateLimited: number } {
    return { requests: { ...this.requests }, rateLimited: this.rateLimited };
  }

  /** Restores the seeded state, clears faults and request counts. */
  reset(): void {
    this.current = seedState();
    this.faults.clear();
    this.requests = {};
    this.markedRequests.clear();
    this.listingLagMs = 0;
    this.rateWindow = new RateWindow();
    this.rateLimited = 0;
  }

  /**
   * How long after its creation a wallet transaction first shows in `GET /transaction/wallet` (0: at once), on
   * the sandbox's clock. Real providers list with a lag; tests use it to make a record show up late.
   */
  listingLagMs = 0;

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw: string;
    try {
      raw = await readBody(req);
    } catch (error) {
      writeReply(res, replyForError(error));
      return;
    }
    const path = pathOf(req);
    if (path.startsWith(ADMIN_PREFIX)) {
      writeReply(
        res,
        this.run(() => handleAdmin(toSandboxRequest(req, raw), this)),
      );
      return;
    }
    this.requests[path] = (this.requests[path] ?? 0) + 1;
    const method = (req.method ?? 'GET').toUpperCase();
    const arrivedAtMs = this.options.now().getTime();
    const fault = routesByPath.has(path) ? this.faults.take(method, path) : undefined;
    // A rate-limit fault answers only the requests above its rate; the others pass as if it were not there.
    const limited =
      fault?.fault === 'rate-limit' && !this.rateWindow.admit(arrivedAtMs, fault.perSecond ?? 1);
    const answeredBy = fault && (fault.fault !== 'rate-limit' || limited) ? fault.fault : undefined;
    this.markedRequests.record({
      body: raw,
      method,
      path,
      atMs: arrivedAtMs,
      ...(answeredBy && { fault: answeredBy }),
    });
    if (fault?.fault === 'rate-limit') {
      if (limited) {
        this.rateLimited++;
        writeReply(
          res,
          errorReply(429, 'Too many requests (sandbox rate limit)', {
            'retry-after': String(RETRY_AFTER_SECONDS),
          }),
        );
        return;
      }
    } else if (fault && (await this.answerFault(fault, req, res))) return;
    const reply = this.run(() => this.dispatch(req, raw, path, method));
    const extraMs = this.options.latencyMs + (fault?.fault === 'latency' ? (fault.latencyMs ?? 0) : 0);
    if (extraMs > 0) await delay(extraMs);
    if (fault?.fault === 'timeout-after-commit') {
      // The operation is committed; the client never hears about it.
      req.socket.destroy();
      return;
    }
    if (fault?.fault === 'error-500-after-commit') {
      // The operation is committed (when it was valid), and the answer is a 500 anyway.
      writeReply(res, errorReply(500, 'Internal server error (sandbox fault)'));
      return;
    }
    writeReply(res, reply);
  }

  /** Answers the faults that act before the operation; true when the request is finished. */
  private async answerFault(fault: FaultSpec, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    switch (fault.fault) {
      case 'error-500':
        writeReply(res, errorReply(500, 'Internal server error (sandbox fault)'));
        return true;
      case 'error-503':
        writeReply(res, errorReply(503, 'Service unavailable (sandbox fault)'));
        return true;
      case 'error-429':
        writeReply(
          res,
          errorReply(429, 'Too many requests (sandbox fault)', {
            'retry-after': String(RETRY_AFTER_SECONDS),
          }),
        );
        return true;
      case 'reset-before-commit':
        req.socket.destroy();
        return true;
      default:
        return false;
    }
  }

  private dispatch(req: IncomingMessage, raw: string, path: string, method: string): Reply {
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${this.options.token}`) {
      return errorReply(
        401,
        auth === undefined ? 'authorization header is missing' : 'bearer token is invalid',
      );
    }
    const candidates = routesByPath.get(path);
    if (!candidates) return errorReply(404, `no route ${method} ${path}`);
    const route = candidates.find((r) => r.method === method);
    if (!route) return errorReply(405, `method ${method} is not allowed on ${path}`);
    const request: SandboxRequest = toSandboxRequest(req, raw);
    const ctx: RouteContext = {
      state: this.current,
      fees: this.options.fees,
      now: this.options.now,
      pin: this.options.pin,
      listingLagMs: this.listingLagMs,
    };
    return route.handler(request, ctx);
  }

  private run(fn: () => Reply): Reply {
    try {
      return fn();
    } catch (error) {
      return replyForError(error);
    }
  }
}

function replyForError(error: unknown): Reply {
  if (error instanceof HttpError) return errorReply(error.status, error.message);
  return errorReply(500, `sandbox failure: ${error instanceof Error ? error.message : String(error)}`);
}
