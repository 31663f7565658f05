import type { createCaller } from '@swarm/api';
import type { NodeContext } from '@swarm/domain';

declare global {
  namespace App {
    interface Locals {
      node: NodeContext;
      /** tRPC caller for server loads: the same procedures the browser calls, in-process. */
      api: ReturnType<typeof createCaller>;
    }
    interface Error {
      message: string;
      code?: string;
    }
  }
}

export {};
