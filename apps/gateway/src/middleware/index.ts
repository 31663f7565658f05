export { jsonOnly, limitBody, parseJsonBody, readJsonBody, readRawBody } from './body.ts';
export { clientIp } from './client-ip.ts';
export { nodeSignature } from './node-signature.ts';
export { chargeSourceDomain, rateLimitByIp } from './rate-limit.ts';
export { requireAdmin } from './require-admin.ts';
export type { SecurityEnv, SecurityVariables } from './security-env.ts';
export { bodyCapFor, limitBodyByPath, swarmBodyGuards } from './swarm-post-guards.ts';
export { refuseNulInUrl } from './url-guard.ts';
