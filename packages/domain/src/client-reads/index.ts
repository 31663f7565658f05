export * from './client-records.ts';
export * from './client-reads.service.ts';
export {
  CLIENT_SCAN_MAX_ROWS,
  type ClientTimelines,
  type PublicScope,
} from './client-timelines.ts';
export { parseActorCursor, type ActorPage } from './status-actors.ts';
export {
  CONTEXT_MAX_ANCESTORS,
  CONTEXT_MAX_DESCENDANTS,
  type StatusContext,
} from './status-context.ts';
