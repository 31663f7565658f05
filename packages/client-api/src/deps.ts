import type { AuthServices } from '@swarm/auth';
import type { NodeContext, NodeUsageService } from '@swarm/domain';
import type { InstanceFacts } from './entities/instance.ts';
import type { ProxyAddressing } from './streaming/streaming.ts';

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
