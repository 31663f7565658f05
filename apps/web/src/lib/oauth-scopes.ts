/**
 * The scopes an app asks for, in plain words for the consent page and Settings. Granular scopes
 * (`read:statuses`) are named by their area; anything unknown is shown as sent.
 */
const TOP: Record<string, string> = {
  read: 'Read everything your account can see: posts, timelines, notifications, lists, settings',
  write: 'Post, reply, like, repost, follow and change your profile and settings for you',
  follow: 'Follow, unfollow, block and mute people for you',
  push: 'Receive your notifications as push messages',
  profile: 'Read your profile only (who you are)',
};

const AREAS: Record<string, string> = {
  accounts: 'profiles',
  blocks: 'blocks',
  bookmarks: 'bookmarks',
  conversations: 'conversations',
  favourites: 'likes',
  filters: 'filters',
  follows: 'follows',
  lists: 'lists',
  media: 'media uploads',
  mutes: 'mutes',
  notifications: 'notifications',
  reports: 'reports',
  search: 'search',
  statuses: 'posts',
};

export function describeScope(scope: string): string {
  const top = TOP[scope];
  if (top) return top;
  const [kind, area] = scope.split(':', 2);
  const what = area ? AREAS[area] : undefined;
  if (what && kind === 'read') return `Read your ${what}`;
  if (what && kind === 'write') return `Change your ${what}`;
  return scope;
}
