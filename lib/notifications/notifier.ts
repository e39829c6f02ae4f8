import type { Logger } from '../shared/logger.js';
import type { NotificationChannel } from './channels.js';
import type { DeliveryMarkers } from './delivery-marker.js';
import { notificationOf } from './notification.js';

export type NotifyOutcome = 'sent' | 'duplicate' | 'ignored';

/**
 * Sends the notification of one event through every configured channel, once per event id: the marker's claim
 * drops a redelivered event (EventBridge delivers at least once; a replay from the archive too). A channel that
 * fails makes the call throw after the others were tried, so Lambda retries the event, and the retry sends only
 * to the channels that had not delivered.
 */
export async function notify(
  deps: {
    readonly markers: DeliveryMarkers;
    readonly channels: readonly NotificationChannel[];
    readonly logger: Logger;
  },
  event: { readonly 'detail-type': string; readonly detail: unknown },
): Promise<NotifyOutcome> {
  const notification = notificationOf(event['detail-type'], event.detail);
  if (!notification) {
    deps.logger.warn('no notification for this event', { detailType: event['detail-type'] });
    return 'ignored';
  }
  const { eventId } = notification;
  const claim = await deps.markers.claim(eventId);
  if (!claim.claimed) {
    deps.logger.info('notification already sent or being sent', { eventId });
    return 'duplicate';
  }
  const failed: string[] = [];
  for (const channel of deps.channels) {
    if (claim.delivered.includes(channel.name)) continue;
    try {
      await channel.deliver(notification);
      await deps.markers.delivered(eventId, channel.name);
    } catch (error) {
      failed.push(channel.name);
      deps.logger.error('notification not delivered', {
        eventId,
        channel: channel.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  if (failed.length > 0) {
    await deps.markers.release(eventId);
    throw new Error(`notification ${eventId} not delivered to ${failed.join(', ')}`);
  }
  await deps.markers.done(eventId);
  deps.logger.info('notification sent', { eventId, detailType: notification.detailType });
  return 'sent';
}
