/// <reference types="@sveltejs/kit" />
/// <reference no-default-lib="true"/>
/// <reference lib="esnext" />
/// <reference lib="webworker" />

// The web app's service worker (SvelteKit registers it at /service-worker.js): it shows the
// node's Web Push notifications and opens the page a notification is about when it is clicked
// (docs/clients.md "Web Push"). It caches nothing: the pages are the person's own and live.

const worker = self as unknown as ServiceWorkerGlobalScope;

/** What the node pushes (Mastodon's fields, plus `url`: the page to open). */
interface PushData {
  title?: string;
  body?: string;
  icon?: string;
  url?: string;
  notification_id?: string;
  notification_type?: string;
}

worker.addEventListener('install', () => {
  void worker.skipWaiting();
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('push', (event) => {
  let data: PushData = {};
  try {
    data = (event.data?.json() ?? {}) as PushData;
  } catch {
    data = { body: event.data?.text() ?? '' };
  }
  event.waitUntil(
    worker.registration.showNotification(data.title || 'New notification', {
      body: data.body ?? '',
      icon: data.icon || '/icon-192.png',
      badge: '/icon-192.png',
      // One notification per node notification: a repeated push replaces rather than stacks.
      tag: data.notification_id,
      data: { url: sameOriginUrl(data.url) },
    }),
  );
});

/** Only pages of this node are opened, whatever a push says. */
function sameOriginUrl(raw: string | undefined): string {
  try {
    const url = new URL(raw ?? '/notifications', worker.location.origin);
    return url.origin === worker.location.origin ? url.href : '/notifications';
  } catch {
    return '/notifications';
  }
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = (event.notification.data as { url?: string } | null)?.url ?? '/notifications';
  event.waitUntil(
    (async () => {
      const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => client.url === target) ?? windows[0];
      if (open) {
        await open.focus();
        if (open.url !== target) await open.navigate(target);
        return;
      }
      await worker.clients.openWindow(target);
    })(),
  );
});
