import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async ({ locals }) => {
  const user = locals.session?.user ?? null;
  const [info, unreadCount] = await Promise.all([
    locals.api.node.info(),
    user ? unread(locals.api) : Promise.resolve(0),
  ]);
  return { info, user, unreadCount };
};

// The badge is a convenience: a failing count must not take every page down with it.
async function unread(api: App.Locals['api']): Promise<number> {
  try {
    return await api.notifications.unreadCount();
  } catch {
    return 0;
  }
}
