import { Hono, type Context } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { credentialAccount } from '../entities/account.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { readForm } from '../form-files.ts';
import { booleanValue } from '../params.ts';
import { acceptUpload } from '../uploads.ts';

/**
 * `PATCH /api/v1/accounts/update_credentials`: the person's name, bio, bot flag, avatar and
 * header from an app (JSON or a form; images as multipart files, through the node's upload
 * path and its per-person budget). `locked`, `discoverable`, `fields_attributes` and `source[…]`
 * are accepted and ignored (the node has no such settings). Answers the credential account.
 * `GET /api/v1/preferences`: the posting and reading defaults apps start from.
 */

export function accountSettingsRoutes() {
  const app = new Hono<BearerEnv>();
  app.on(
    ['PATCH', 'POST'],
    '/api/v1/accounts/update_credentials',
    requireToken(['write:accounts'], { user: true }),
    updateCredentials,
  );
  app.get('/api/v1/preferences', requireToken(['read:accounts'], { user: true }), async (c) => {
    const user = await c.var.deps.node.db.prisma.user.findUnique({
      where: { id: c.var.grant.userId! },
      select: { showNsfw: true },
    });
    if (!user) return apiError(c, 401, 'The access token is invalid');
    return c.json({
      'posting:default:visibility': 'public',
      'posting:default:sensitive': false,
      'posting:default:language': null,
      'reading:expand:media': user.showNsfw ? 'show_all' : 'default',
      'reading:expand:spoilers': false,
    });
  });
  return app;
}

async function updateCredentials(c: Context<BearerEnv>) {
  const { deps } = c.var;
  const { node, auth } = deps;
  const userId = c.var.grant.userId!;
  const form = await readForm(c.req.raw);
  if (!form.ok) return apiError(c, 400, form.reason);
  const { params, files } = form.value;
  const current = await auth.accounts.settings(userId);
  if (!current.ok) return apiError(c, 401, 'The access token is invalid');
  const bot = params.bot === undefined ? undefined : booleanValue(params.bot);
  if (params.bot !== undefined && bot === undefined) {
    return apiError(c, 422, 'Validation failed: bot is not a boolean');
  }
  for (const field of ['display_name', 'note'] as const) {
    if (params[field] !== undefined && typeof params[field] !== 'string') {
      return apiError(c, 422, `Validation failed: ${field} is not a string`);
    }
  }
  const s = current.value;
  // Forms carry line breaks as CRLF; the bio keeps plain newlines, as our pages write it.
  const note = typeof params.note === 'string' ? params.note.replace(/\r\n?/g, '\n') : undefined;
  const updated = await auth.accounts.updateSettings(userId, {
    displayName: (params.display_name as string | undefined) ?? s.displayName,
    bio: note ?? s.bio,
    avatarUrl: s.avatarUrl ?? '',
    headerUrl: s.headerUrl ?? '',
    website: s.website ?? '',
    isNsfw: s.isNsfw,
    showNsfw: s.showNsfw,
    isBot: bot,
  });
  if (!updated.ok) return refusalAnswer(c, updated.reason);
  for (const purpose of ['avatar', 'header'] as const) {
    const file = files[purpose];
    if (!file) continue;
    const accepted = await acceptUpload(c, { ownerId: userId, purpose, file, field: purpose });
    if (!accepted.ok) return accepted.response;
  }
  const person = await deps.usage.person(userId);
  if (!person) return apiError(c, 401, 'The access token is invalid');
  return c.json(credentialAccount(person, baseUrlForDomain(node.config.domain)));
}
