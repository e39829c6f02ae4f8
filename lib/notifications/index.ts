/** The notifications room: approvers and operators told when something waits for them or went wrong. */
export {
  CHANNEL_REQUEST_TIMEOUT_MS,
  type NotificationChannel,
  NotificationDeliveryError,
  SnsTopicChannel,
  WebhookChannel,
  type WebhookTarget,
} from './channels.js';
export { DeliveryMarkers, notificationKeys } from './delivery-marker.js';
export { maskAccountNumbers, NOTIFIED_EVENTS, type Notification, notificationOf } from './notification.js';
export { type NotifyOutcome, notify } from './notifier.js';
export {
  signWebhook,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
} from './webhook-signature.js';
