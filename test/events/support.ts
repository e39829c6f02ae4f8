import type { EventBridgeEvent } from 'aws-lambda';

/** A `Payout Requested` event as the EventBridge rule delivers it. */
export function payoutRequested(
  id: string,
  detail: Record<string, unknown>,
  overrides: Partial<EventBridgeEvent<string, unknown>> = {},
): EventBridgeEvent<string, unknown> {
  return {
    version: '0',
    id,
    'detail-type': 'Payout Requested',
    source: 'merchant.payouts',
    account: '123456789012',
    time: '2026-03-02T08:00:00Z',
    region: 'eu-west-1',
    resources: [],
    detail,
    ...overrides,
  };
}
