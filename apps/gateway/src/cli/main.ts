import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  adminBlockListSchema,
  adminCreatedPostSchema,
  adminCreatedTokenSchema,
  adminCreatedUserSchema,
  adminSeedListSchema,
  adminTokenListSchema,
  infoResponseSchema,
  nodeListResponseSchema,
} from '@swarm/contract';
import { AdminRequestError, createAdminClient } from './admin-client.ts';
import { backup, BackupError, restore, type DatabaseEnv } from './backup.ts';
import { ago, formatReport, table } from './format.ts';
import { runLocalSwarm } from './local-swarm.ts';
import { addModerationCommands } from './moderation-commands.ts';

// `pnpm swarm <command>`: an operator's view of a running node through its HTTP API, so it
// works the same against a laptop node and a production one.

const program = new Command()
  .name('swarm')
  .description('Operate a Swarm node through its HTTP API.')
  .option(
    '--node <url>',
    'the node to talk to',
    process.env.SWARM_NODE_URL ?? 'http://localhost:3000',
  )
  .showHelpAfterError('(run with --help for usage)');

function client() {
  const { node } = program.opts<{ node: string }>();
  return createAdminClient({
    node,
    token: process.env.SWARM_ADMIN_TOKEN ?? process.env.ADMIN_TOKEN,
  });
}

/** The whole of stdin, minus one trailing newline (`echo … |` and `< file` add one). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new Error('--password-stdin: standard input was empty.');
  return text;
}

/** The optional `--reason` of a write, as the admin API takes it (for the audit log). */
const withReason = (opts: { reason?: string }) => (opts.reason ? { reason: opts.reason } : {});

const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`expected an integer between ${min} and ${max}.`);
  }
  return n;
};

program
  .command('status')
  .description("this node's info and what it knows of the swarm")
  .action(async () => {
    const info = await client().get('/api/swarm/info?stats=true', infoResponseSchema);
    const stats = info.stats;
    console.log(
      table(
        ['', ''],
        [
          ['domain', info.domain],
          ['name', info.name],
          ['software', `Swarm node ${String(info.softwareVersion)}`],
          ['people / posts', `${String(info.userCount)} / ${String(info.postCount)}`],
          ['capabilities', info.capabilities.join(', ')],
          ['known nodes', stats ? `${stats.totalNodes} (${stats.activeNodes} active)` : '–'],
          ['swarm people / posts', stats ? `${stats.totalUsers} / ${stats.totalPosts}` : '–'],
        ],
      ),
    );
  });

program
  .command('nodes')
  .description('the nodes this node knows')
  .option('--limit <n>', 'at most this many', integer(1, 500), 500)
  .action(async (opts: { limit: number }) => {
    const body = await client().get(
      `/api/swarm/nodes?limit=${opts.limit}&stats=true`,
      nodeListResponseSchema,
    );
    console.log(
      table(
        ['domain', 'name', 'profile', 'people', 'posts', 'last seen'],
        body.nodes.map((n) => [
          n.domain,
          n.name,
          n.protocolProfile ?? '?',
          n.userCount,
          n.postCount,
          ago(n.lastSeenAt),
        ]),
      ),
    );
    if (body.stats) console.log(`${body.stats.totalNodes} known, ${body.stats.activeNodes} active`);
  });

const seeds = program.command('seeds').description('seed nodes (bootstrap points)');
seeds
  .command('add <domain>')
  .description('add a seed node')
  .option('--priority <n>', 'lower is contacted first', integer(0, 1_000_000), 100)
  .action(async (domain: string, opts: { priority: number }) => {
    console.log(
      formatReport(await client().action({ action: 'addSeed', domain, priority: opts.priority })),
    );
  });

seeds
  .command('list')
  .description('the seed nodes, by priority, with their contact state')
  .action(async () => {
    const body = await client().adminGet('/api/swarm/admin/seeds', adminSeedListSchema);
    console.log(
      table(
        ['domain', 'priority', 'enabled', 'last contact', 'failures'],
        body.seeds.map((s) => [
          s.domain,
          s.priority,
          s.isEnabled ? 'yes' : 'no',
          ago(s.lastContactAt),
          s.consecutiveFailures,
        ]),
      ),
    );
    console.log(`${body.seeds.length} seed(s)`);
  });
for (const [name, isEnabled] of [
  ['enable', true],
  ['disable', false],
] as const) {
  seeds
    .command(`${name} <domain>`)
    .description(`${name} a seed node`)
    .option('--reason <text>', 'why (goes to the audit log)')
    .action(async (domain: string, opts: { reason?: string }) => {
      await client().adminPut(`/api/swarm/admin/seeds/${encodeURIComponent(domain)}`, {
        isEnabled,
        ...withReason(opts),
      });
      console.log(`seed ${domain} ${isEnabled ? 'enabled' : 'disabled'}`);
    });
}

program
  .command('block <domain>')
  .description('block a node: its requests are refused and it is marked inactive')
  .option('--reason <text>', 'why (kept with the block)')
  .action(async (domain: string, opts: { reason?: string }) => {
    await client().adminPost(
      '/api/swarm/admin/blocks',
      opts.reason ? { domain, reason: opts.reason } : { domain },
    );
    console.log(`blocked ${domain}`);
  });

program
  .command('unblock <domain>')
  .description('lift the block of a node')
  .option('--reason <text>', 'why (goes to the audit log)')
  .action(async (domain: string, opts: { reason?: string }) => {
    await client().adminDelete(
      `/api/swarm/admin/blocks/${encodeURIComponent(domain)}`,
      withReason(opts),
    );
    console.log(`unblocked ${domain}`);
  });

program
  .command('blocks')
  .description('the blocked nodes')
  .action(async () => {
    const body = await client().adminGet('/api/swarm/admin/blocks', adminBlockListSchema);
    console.log(
      table(
        ['domain', 'reason', 'since'],
        body.blocks.map((b) => [b.domain, b.reason, ago(b.createdAt)]),
      ),
    );
  });

program
  .command('reset-key <domain>')
  .description("forget a node's pinned key (after it rotated its key on purpose)")
  .option('--reason <text>', 'why (goes to the audit log)')
  .action(async (domain: string, opts: { reason?: string }) => {
    await client().adminPost(
      `/api/swarm/admin/nodes/${encodeURIComponent(domain)}/reset-key`,
      withReason(opts),
    );
    console.log(`the pinned key of ${domain} is forgotten; its next signed request pins a new one`);
  });

const tokens = program.command('tokens').description('admin API tokens');
tokens
  .command('create <name>')
  .description('create an admin token (shown once)')
  .option('--reason <text>', 'why (goes to the audit log)')
  .action(async (name: string, opts: { reason?: string }) => {
    const created = await client().adminPostFor(
      '/api/swarm/admin/tokens',
      { name, ...withReason(opts) },
      adminCreatedTokenSchema,
    );
    console.log(
      `created admin token "${created.name}" (id ${created.id}):\n\n  ${created.token}\n`,
    );
    console.log('Store it now: it is shown only once (the node keeps only its hash).');
  });
tokens
  .command('list')
  .description('the stored admin tokens (never their secrets)')
  .action(async () => {
    const body = await client().adminGet('/api/swarm/admin/tokens', adminTokenListSchema);
    console.log(
      table(
        ['id', 'name', 'created', 'last used', 'state'],
        body.tokens.map((t) => [
          t.id,
          t.name,
          ago(t.createdAt),
          ago(t.lastUsedAt),
          t.revokedAt ? 'revoked' : 'active',
        ]),
      ),
    );
  });
tokens
  .command('revoke <id>')
  .description('revoke an admin token')
  .option('--reason <text>', 'why (goes to the audit log)')
  .action(async (id: string, opts: { reason?: string }) => {
    await client().adminDelete(
      `/api/swarm/admin/tokens/${encodeURIComponent(id)}`,
      withReason(opts),
    );
    console.log(`revoked token ${id}`);
  });

const users = program.command('users').description('local accounts');
users
  .command('create <handle>')
  .description('create a local account; without --password-stdin a password is generated')
  .option('--admin', 'the account may use the admin area', false)
  .option('--display-name <name>', 'the name shown on posts (default: the handle)')
  .option('--password-stdin', 'read the password from standard input (kept out of shell history)')
  .action(
    async (
      handle: string,
      opts: { admin: boolean; displayName?: string; passwordStdin?: boolean },
    ) => {
      const password = opts.passwordStdin ? await readPasswordFromStdin() : undefined;
      const created = await client().adminPostFor(
        '/api/swarm/admin/users',
        {
          handle,
          admin: opts.admin,
          ...(opts.displayName !== undefined ? { displayName: opts.displayName } : {}),
          ...(password !== undefined ? { password } : {}),
        },
        adminCreatedUserSchema,
      );
      const role = created.user.isAdmin ? 'admin account' : 'account';
      console.log(`created ${role} "${created.user.handle}"`);
      if (created.password) {
        console.log(`\n  password: ${created.password}\n`);
        console.log(
          'Store it now: it is shown only once (the node keeps only its hash). Change it after the first login.',
        );
      }
    },
  );

addModerationCommands(program, users, client);

const posts = program.command('posts').description('posts by local accounts (operators, bots)');
posts
  .command('create <text...>')
  .description('publish a post as a local user; mentions of people elsewhere are delivered')
  .requiredOption('--as <handle>', 'the local user who posts it')
  .option('--nsfw', 'mark the post as NSFW', false)
  .option('--reply-to <id>', 'a post id here, or swarm:<domain>:<id> elsewhere')
  .action(async (words: string[], opts: { as: string; nsfw: boolean; replyTo?: string }) => {
    const created = await client().adminPostFor(
      '/api/swarm/admin/posts',
      {
        handle: opts.as,
        content: words.join(' '),
        isNsfw: opts.nsfw,
        ...(opts.replyTo ? { replyToId: opts.replyTo } : {}),
      },
      adminCreatedPostSchema,
    );
    console.log(`posted ${created.post.id} as ${opts.as} (${created.post.path})`);
    for (const d of created.deliveries)
      console.log(`  ${d.kind} to ${d.targetDomain}: ${d.summary}`);
  });

program
  .command('announce [domain]')
  .description('announce this node to its seeds, or to one node')
  .action(async (domain?: string) => {
    console.log(domain ? `announcing to ${domain}…` : 'announcing to the seeds…');
    console.log(
      formatReport(
        await client().action(domain ? { action: 'announce', domain } : { action: 'announce' }),
      ),
    );
  });

program
  .command('gossip [domain]')
  .description('run a gossip round now, or gossip with one node')
  .action(async (domain?: string) => {
    console.log(domain ? `gossiping with ${domain}…` : 'running a gossip round…');
    console.log(
      formatReport(
        await client().action(domain ? { action: 'gossip', domain } : { action: 'gossip' }),
      ),
    );
  });

program
  .command('discover <domain>')
  .description('contact a node and add it to the registry')
  .action(async (domain: string) => {
    console.log(`discovering ${domain}…`);
    console.log(formatReport(await client().action({ action: 'discover', domain })));
  });

/** pnpm runs scripts in the package folder; paths are the caller's. */
const callerDir = () => process.env.INIT_CWD ?? process.cwd();
/** The database the node is configured with: the same variables as the node's. */
const databaseEnv = (): DatabaseEnv => ({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.DATA_DIR?.trim() || './data',
  baseDir: callerDir(),
});

program
  .command('backup <file>')
  .description(
    'back up the node while it runs: pg_dump when DATABASE_URL is Postgres, else the running embedded node dumps its database (admin token)',
  )
  .action(async (file: string) => {
    await backup({
      file: resolve(callerDir(), file),
      env: databaseEnv(),
      client,
      log: console.log,
    });
  });

program
  .command('restore <file>')
  .description(
    'restore a backup into the database DATABASE_URL / DATA_DIR names; it must be empty (embedded: node stopped)',
  )
  .option(
    '--force',
    'replace a database that is not empty (stop every node process on it first)',
    false,
  )
  .action(async (file: string, opts: { force: boolean }) => {
    await restore({
      file: resolve(callerDir(), file),
      env: databaseEnv(),
      force: opts.force,
      log: console.log,
    });
  });

program
  .command('local')
  .description('start a local swarm of embedded nodes on consecutive ports and watch it converge')
  .option('--nodes <n>', 'how many nodes', integer(1, 20), 3)
  .option('--base-port <port>', 'port of the first node', integer(1, 65_000), 4000)
  .option('--gossip-interval <ms>', 'time between gossip rounds', integer(1000, 600_000), 3000)
  .option('--data <dir>', 'where the nodes keep their databases', 'data/local')
  .action(
    async (opts: { nodes: number; basePort: number; gossipInterval: number; data: string }) => {
      await runLocalSwarm({
        nodes: opts.nodes,
        basePort: opts.basePort,
        gossipIntervalMs: opts.gossipInterval,
        baseEnv: process.env,
        // pnpm runs scripts in the package folder; paths are the caller's.
        dataRoot: resolve(process.env.INIT_CWD ?? process.cwd(), opts.data),
      });
    },
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof AdminRequestError || error instanceof BackupError) {
    console.error(`swarm: ${error.message}`);
  } else {
    console.error(`swarm: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
