export { createClientApi, type ClientApi } from './client-api.ts';
export type { ClientApiComposition } from './deps.ts';
export { MASTODON_API_VERSION, SOFTWARE_NAME, VERSION_STRING } from './entities/instance.ts';
export { isClientApiPath } from './paths.ts';
export {
  accountEntity,
  credentialAccount,
  localAccount,
  profileUrl,
  type AccountEntity,
} from './entities/account.ts';
export {
  uploadEntity,
  postUrl,
  statusEntities,
  statusEntity,
  type MediaAttachmentEntity,
  type StatusEntity,
} from './entities/status.ts';
export { postHtml, textAsHtml } from './entities/html.ts';
export { formatApiId, parseApiId } from './ids.ts';
