import type { EventBridgeEvent } from 'aws-lambda';
import { type NotifyOutcome, notify } from '../lib/notifications/index.js';
import { notifierFromProcessEnv } from '../lib/runtime/notifier.js';

/** EventBridge rule target (approvals, needs review, paid twice, statement mismatch): one notification per event. */
export function handler(event: EventBridgeEvent<string, unknown>): Promise<NotifyOutcome> {
  return notify(notifierFromProcessEnv(), event);
}
