import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async ({ locals, depends }) => {
  // Pages that change a badge's count (reading messages) invalidate this.
  depends('app:unread');
  const user = locals.session?.user ?? null;
  const [info, unreadCount, unreadMessages] = await Promise.all([
    locals.api.node.info(),
    user ? unread(() => locals.api.notifications.unreadCount()) : Promise.resolve(0),
    user ? unread(() => locals.api.messages.unreadCount()) : Promise.resolve(0),
  ]);
  return { info, user, unreadCount, unreadMessages };
};

// The badges are a convenience: a failing count must not take every page down with it.
async function unread(count: () => Promise<number>): Promise<number> {
  try {
    return await count();
  } catch {
    return 0;
  }
}
