export { createAppDelegations, type AppDelegations } from './app-delegations.service.ts';
export {
  createDelegationChecks,
  DELEGATION_STATUS_TTL_MS,
  type DelegationChecks,
  type DelegationCheckError,
} from './delegation-check.ts';
export { delegatedAppKey } from './delegation-key.ts';
export { actionsForScopes } from './scope-actions.ts';
export type {
  AppGrant,
  DelegatedBody,
  DelegatedPost,
  PreparedDelegation,
  PreparedForApp,
} from './delegation-types.ts';
export { DELEGATION_DEFAULT_DAYS } from './delegation-types.ts';
