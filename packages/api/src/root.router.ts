import { accountRouter } from './account.router.ts';
import { adminRouter } from './admin.router.ts';
import { authRouter } from './auth.router.ts';
import { bookmarksRouter } from './bookmarks.router.ts';
import { deliveriesRouter } from './deliveries.router.ts';
import { interactionsRouter } from './interactions.router.ts';
import { listsRouter } from './lists.router.ts';
import { messagesRouter } from './messages.router.ts';
import { moderationRouter } from './moderation.router.ts';
import { nodeRouter } from './node.router.ts';
import { notificationsRouter } from './notifications.router.ts';
import { postsRouter } from './posts.router.ts';
import { profilesRouter } from './profiles.router.ts';
import { pushRouter } from './push.router.ts';
import { searchRouter } from './search.router.ts';
import { threadsRouter } from './threads.router.ts';
import { timelineRouter } from './timeline.router.ts';
import { settingsRouter } from './settings.router.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  node: nodeRouter,
  timeline: timelineRouter,
  profiles: profilesRouter,
  search: searchRouter,
  threads: threadsRouter,
  notifications: notificationsRouter,
  auth: authRouter,
  settings: settingsRouter,
  admin: adminRouter,
  posts: postsRouter,
  interactions: interactionsRouter,
  bookmarks: bookmarksRouter,
  lists: listsRouter,
  deliveries: deliveriesRouter,
  messages: messagesRouter,
  moderation: moderationRouter,
  account: accountRouter,
  push: pushRouter,
});

export type AppRouter = typeof appRouter;

/** In-process calls for SvelteKit server loads and for tests. */
export const createCaller = createCallerFactory(appRouter);
