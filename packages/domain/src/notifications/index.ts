export * from './notification.service.ts';
export {
  APP_NOTIFICATIONS_LIMIT,
  NOTIFICATION_KINDS,
  type AppNotificationQuery,
  type AppNotificationRow,
  type NotificationKind,
} from './notification-app-reads.ts';
