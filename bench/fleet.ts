/**
 * The `submit-payouts` fleet of a benchmark's coordinator: each container a Node process of its own
 * (bench/fleet-container.ts), invoked with one SQS batch at a time over IPC, as Lambda's poller invokes one.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ContainerAnswer, ContainerReport, ContainerRequest } from './fleet-container.js';
import { childrenOf, cpuSecondsOf, machineBusySeconds } from './process-cpu.js';

/** A container process and whether an invocation is running in it. */
export interface Container {
  readonly child: ChildProcess;
  readonly pid: number;
  busy: boolean;
}

export interface Fleet {
  readonly containers: readonly Container[];
  /** The environment new containers start with: the function's, as the stack sets it. */
  environment: NodeJS.ProcessEnv;
  /** Starts a container (cold: its handler is imported on its first invocation). */
  start(): Promise<Container>;
  /**
   * Lambda's poller: the batch goes to an idle container, or a new one (cold) when all are busy (an invocation
   * the queue gave up on as timed out still occupies its container, as in Lambda).
   */
  invoke(event: SQSEvent, context: Context): Promise<SQSBatchResponse>;
  invokeOn(container: Container, event: SQSEvent, context: Context): Promise<SQSBatchResponse>;
  /** A container's own figures. */
  reportOf(container: Container): Promise<ContainerReport>;
  /** Ends every container's process. */
  stop(): void;
}

export function startFleet(): Fleet {
  const containers: Container[] = [];
  const waiting = new Map<number, (answer: ContainerAnswer) => void>();
  let nextInvocation = 0;

  const fleet: Fleet = {
    containers,
    environment: {},
    async start() {
      const child = fork(join(import.meta.dirname, 'fleet-container.ts'), [], {
        execArgv: ['--import', 'tsx'],
        env: fleet.environment,
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('message', (answer: ContainerAnswer) => {
          if (answer.kind === 'ready') resolve(answer.pid);
          else reject(new Error(`container answered ${answer.kind} before it was ready`));
        });
        child.once('exit', (code) => reject(new Error(`container exited with ${code} before it was ready`)));
      });
      child.on('message', (answer: ContainerAnswer) => {
        if (answer.kind === 'done' || answer.kind === 'failed') {
          waiting.get(answer.id)?.(answer);
          waiting.delete(answer.id);
        }
      });
      const container = { child, pid, busy: false };
      containers.push(container);
      return container;
    },
    async invoke(event, context) {
      const container = containers.find((candidate) => !candidate.busy) ?? (await fleet.start());
      return fleet.invokeOn(container, event, context);
    },
    async invokeOn(container, event, context) {
      container.busy = true;
      const id = nextInvocation++;
      try {
        const answer = await new Promise<ContainerAnswer>((resolve) => {
          waiting.set(id, resolve);
          const request: ContainerRequest = {
            kind: 'invoke',
            id,
            event,
            remainingMs: context.getRemainingTimeInMillis(),
          };
          container.child.send(request);
        });
        if (answer.kind === 'failed') throw new Error(`the container's invocation threw ${answer.error}`);
        if (answer.kind !== 'done') throw new Error(`unexpected answer ${answer.kind}`);
        return answer.response ?? { batchItemFailures: [] };
      } finally {
        container.busy = false;
      }
    },
    reportOf(container) {
      return new Promise((resolve) => {
        const onMessage = (answer: ContainerAnswer) => {
          if (answer.kind !== 'report') return;
          container.child.off('message', onMessage);
          resolve(answer.report);
        };
        container.child.on('message', onMessage);
        container.child.send({ kind: 'report' } satisfies ContainerRequest);
      });
    },
    stop() {
      for (const container of containers) container.child.send({ kind: 'stop' } satisfies ContainerRequest);
    },
  };
  return fleet;
}

/** CPU seconds of one run's processes and of the whole machine (bench/process-cpu.ts). */
export interface RunCpu {
  readonly coordinator: number;
  readonly containers: number;
  readonly dynamoDbLocal: number;
  readonly provider: number;
  readonly machine: number;
}

/**
 * The CPU meter of a coordinator's run: this process, the fleet's containers, and its siblings DynamoDB Local
 * and the sandbox (started by the benchmark that spawned it). `since(start)` is each figure's use since `start`,
 * to the hundredth of a second.
 */
export function runCpuMeter(fleet: Pick<Fleet, 'containers'>) {
  const siblings = childrenOf(process.ppid);
  const dynamoDbPid = siblings.find((sibling) => sibling.commandLine.includes('DynamoDBLocal'))?.pid;
  const providerPid = siblings.find((sibling) => sibling.commandLine.includes('sandbox'))?.pid;
  const now = (): RunCpu => {
    const own = process.cpuUsage();
    return {
      coordinator: (own.user + own.system) / 1e6,
      containers: fleet.containers.reduce((sum, container) => sum + cpuSecondsOf(container.pid), 0),
      dynamoDbLocal: dynamoDbPid ? cpuSecondsOf(dynamoDbPid) : 0,
      provider: providerPid ? cpuSecondsOf(providerPid) : 0,
      machine: machineBusySeconds(),
    };
  };
  const since = (start: RunCpu): RunCpu => {
    const end = now();
    const used = (name: keyof RunCpu) => Math.round((end[name] - start[name]) * 100) / 100;
    return {
      coordinator: used('coordinator'),
      containers: used('containers'),
      dynamoDbLocal: used('dynamoDbLocal'),
      provider: used('provider'),
      machine: used('machine'),
    };
  };
  return { now, since };
}
