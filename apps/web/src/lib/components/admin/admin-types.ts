import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@swarm/api';

// What the admin pages show, as the admin procedures answer it (dates are ISO strings).

type Outputs = inferRouterOutputs<AppRouter>['admin'];
type Inputs = inferRouterInputs<AppRouter>['admin'];

export type NodeList = Outputs['nodes']['list'];
export type NodeRow = NodeList['nodes'][number];
export type NodeDetail = Outputs['nodes']['get'];
export type SyncLogRow = NodeDetail['syncLog'][number];
export type SyncPoint = NodeDetail['history'][number];
export type ActionReport = Outputs['actions']['gossip'];
export type PeerResult = ActionReport['results'][number];
export type NodeQuery = Exclude<Inputs['nodes']['list'], void | undefined>;
export type NodeSort = NonNullable<NodeQuery['sort']>;
export type NodeStatus = NonNullable<NodeQuery['status']>;
export type SortDir = NonNullable<NodeQuery['dir']>;
