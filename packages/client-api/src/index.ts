export { createClientApi, type ClientApi } from './client-api.ts';
export type { ClientApiComposition } from './deps.ts';
export { MASTODON_API_VERSION, SOFTWARE_NAME, VERSION_STRING } from './entities/instance.ts';
export { isClientApiPath } from './paths.ts';
