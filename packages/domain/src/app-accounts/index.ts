export * from './app-accounts.service.ts';
export { ACCOUNT_IDS_MAX, addressOf, isAccountId, type AppAccount } from './account-records.ts';
export {
  FOLLOW_PAGE_LIMIT,
  type FollowPage,
  type FollowPageQuery,
  type FollowSide,
} from './follow-pages.ts';
export type { Relationship } from './relationships.ts';
export { ACCOUNT_POSTS_LIMIT, type AccountPostsQuery } from './account-posts.ts';
export { LIKED_POSTS_LIMIT } from './liked-posts.ts';
