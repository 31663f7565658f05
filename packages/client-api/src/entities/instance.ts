import { baseUrlForDomain, POST_LIMITS, type RegistrationMode } from '@swarm/contract';
import {
  MEDIA_TYPES,
  SOFTWARE_VERSION,
  type NodeConfig,
  type NodeContact,
  type NodeUsage,
} from '@swarm/domain';
import { localAccount } from './account.ts';

/**
 * The instance documents (`/api/v1/instance`, `/api/v2/instance`) and nodeinfo, from what the
 * node knows of itself. Limits are the node's own (the post rules, the upload settings), so an
 * app's composer refuses what the node would refuse.
 */

/** The Mastodon API level this edge follows: apps read features from the version string. */
export const MASTODON_API_VERSION = '4.2.0';
export const SOFTWARE_NAME = 'swarm-node';
export const VERSION_STRING = `${MASTODON_API_VERSION} (compatible; ${SOFTWARE_NAME} ${SOFTWARE_VERSION})`;

/** What every instance document is made of, read once per request. */
export interface InstanceFacts {
  config: Pick<
    NodeConfig,
    'domain' | 'nodeName' | 'nodeDescription' | 'uploadMaxBytes' | 'uploadMaxPixels'
  >;
  usage: NodeUsage;
  contact: NodeContact | null;
  registrations: { mode: RegistrationMode; rules: string };
}

const streamingUrl = (baseUrl: string) => baseUrl.replace(/^http/, 'ws');

function configuration(facts: InstanceFacts) {
  return {
    accounts: { max_featured_tags: 0, max_pinned_statuses: 0 },
    statuses: {
      max_characters: POST_LIMITS.contentChars,
      max_media_attachments: POST_LIMITS.media,
    },
    media_attachments: {
      supported_mime_types: MEDIA_TYPES,
      image_size_limit: facts.config.uploadMaxBytes,
      image_matrix_limit: facts.config.uploadMaxPixels,
      // Only images are accepted: no video or audio at all.
      video_size_limit: 0,
      video_frame_rate_limit: 0,
      video_matrix_limit: 0,
      description_limit: POST_LIMITS.altTextChars,
    },
    // No polls on this node.
    polls: {
      max_options: 0,
      max_characters_per_option: 0,
      min_expiration: 0,
      max_expiration: 0,
    },
    translation: { enabled: false },
  };
}

/** The node's picture for apps' server lists: the web app's own icon (its manifest's). */
const NODE_ICON_PATH = '/icon-512.png';

/** The node's rules are one text; apps list rules, so it is one entry (none when empty). */
const rulesOf = (rules: string) =>
  rules.trim() ? [{ id: '1', text: rules.trim(), hint: '' }] : [];

export function instanceV1(facts: InstanceFacts) {
  const baseUrl = baseUrlForDomain(facts.config.domain);
  const { mode } = facts.registrations;
  return {
    uri: facts.config.domain,
    title: facts.config.nodeName,
    short_description: facts.config.nodeDescription,
    description: facts.config.nodeDescription,
    email: '',
    version: VERSION_STRING,
    urls: { streaming_api: streamingUrl(baseUrl) },
    stats: {
      user_count: facts.usage.users,
      status_count: facts.usage.localPosts,
      domain_count: facts.usage.knownNodes,
    },
    thumbnail: `${baseUrl}${NODE_ICON_PATH}`,
    languages: ['en'],
    registrations: mode !== 'invite',
    approval_required: mode === 'approval',
    invites_enabled: mode === 'invite',
    configuration: configuration(facts),
    contact_account: facts.contact ? localAccount(facts.contact, baseUrl) : null,
    rules: rulesOf(facts.registrations.rules),
  };
}

/** `vapidPublicKey`: the node's VAPID key, base64url, which apps subscribe to Web Push with. */
export function instanceV2(facts: InstanceFacts, vapidPublicKey: string) {
  const baseUrl = baseUrlForDomain(facts.config.domain);
  const { mode } = facts.registrations;
  return {
    domain: facts.config.domain,
    title: facts.config.nodeName,
    version: VERSION_STRING,
    source_url: '',
    description: facts.config.nodeDescription,
    usage: { users: { active_month: facts.usage.activeMonth } },
    thumbnail: { url: `${baseUrl}${NODE_ICON_PATH}` },
    languages: ['en'],
    configuration: {
      urls: { streaming: streamingUrl(baseUrl) },
      vapid: { public_key: vapidPublicKey },
      ...configuration(facts),
    },
    registrations: {
      enabled: mode !== 'invite',
      approval_required: mode === 'approval',
      message: null,
      url: null,
    },
    contact: {
      email: '',
      account: facts.contact ? localAccount(facts.contact, baseUrl) : null,
    },
    rules: rulesOf(facts.registrations.rules),
  };
}

/** Where nodeinfo documents are: `/.well-known/nodeinfo` links to the 2.1 one. */
export const NODEINFO_21_SCHEMA = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

export function nodeInfoLinks(domain: string) {
  return { links: [{ rel: NODEINFO_21_SCHEMA, href: `${baseUrlForDomain(domain)}/nodeinfo/2.1` }] };
}

/**
 * Nodeinfo 2.1. `protocols` names the swarm's own protocol, not ActivityPub: this node does not
 * speak it, and a false claim would invite Mastodon servers to federate. `metadata.upstream`
 * says which client API it offers; megalodon's detector reads it to pick its Mastodon client.
 */
export function nodeInfo21(facts: InstanceFacts) {
  return {
    version: '2.1',
    software: { name: SOFTWARE_NAME, version: SOFTWARE_VERSION },
    protocols: ['swarm'],
    services: { inbound: [], outbound: [] },
    openRegistrations: facts.registrations.mode === 'open',
    usage: {
      users: {
        total: facts.usage.users,
        activeMonth: facts.usage.activeMonth,
        activeHalfyear: facts.usage.activeHalfyear,
      },
      localPosts: facts.usage.localPosts,
    },
    metadata: {
      nodeName: facts.config.nodeName,
      nodeDescription: facts.config.nodeDescription,
      upstream: { name: 'mastodon', version: MASTODON_API_VERSION },
    },
  };
}
