import type { AuthServices } from '@swarm/auth';
import type { NodeContext, NodeUsageService } from '@swarm/domain';
import type { InstanceFacts } from './entities/instance.ts';

/** How the web app's edge reads a client's address behind a proxy (adapter-node's settings). */
export interface ProxyAddressing {
  /** `ADDRESS_HEADER`, e.g. X-Forwarded-For; unset: the socket's peer. */
  header?: string | undefined;
  /** `XFF_DEPTH`: proxies in front, counted from the right of X-Forwarded-For. */
  depth?: number | undefined;
}

/** What the entry point hands the client API: the node and its auth services. */
export interface ClientApiComposition {
  node: NodeContext;
  auth: AuthServices;
  /** How the web app reads a client's address behind a proxy (for streaming's upgrades). */
  proxy?: ProxyAddressing | undefined;
}

/** Built once per process from the composition; routes read it from the context. */
export interface ClientApiDeps extends ClientApiComposition {
  usage: NodeUsageService;
  instanceFacts(): Promise<InstanceFacts>;
}

/** Per request: the caller's address as the web app's edge determined it. */
export interface ClientApiBindings {
  clientIp: string;
}

export interface ClientApiEnv {
  Bindings: ClientApiBindings;
  Variables: { deps: ClientApiDeps };
}
