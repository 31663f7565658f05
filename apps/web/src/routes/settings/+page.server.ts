import { fail, redirect } from '@sveltejs/kit';
import { messagePrivacySchema } from '@swarm/contract';
import { formErrorsFrom, type FormErrors } from '$lib/form-errors';
import { loginPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const [settings, messagePrivacy, account] = await Promise.all([
    locals.api.settings.get(),
    locals.api.messages
      .me()
      .then((me) => me.messagePrivacy)
      // The rest of the page still works if messages do not (the privacy form says so).
      .catch(() => null),
    // Where the account came from or went (export / move / delete section).
    locals.api.profiles
      .get({ address: locals.session.user.handle, limit: 0 })
      .then(({ profile }) => ({ movedFrom: profile.movedFrom, movedTo: profile.movedTo }))
      .catch(() => ({ movedFrom: null, movedTo: null })),
  ]);
  // What the page shows of the current images: this node's own files, or through its proxy.
  const images = {
    avatarSrc: locals.node.media.src(settings.avatarUrl),
    headerSrc: locals.node.media.src(settings.headerUrl),
  };
  return { settings, messagePrivacy, account, images };
};

// The inputs each form shows errors next to (a refusal's `field`); others go on the form.
const PROFILE_FIELDS = ['displayName', 'bio', 'avatarUrl', 'headerUrl', 'website'] as const;
const PASSWORD_FIELDS = ['currentPassword', 'newPassword'] as const;

function texts(form: FormData) {
  return (name: string) => String(form.get(name) ?? '');
}

export const actions: Actions = {
  profile: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const text = texts(form);
    const values = {
      displayName: text('displayName'),
      bio: text('bio'),
      avatarUrl: text('avatarUrl'),
      headerUrl: text('headerUrl'),
      website: text('website'),
      isNsfw: form.get('isNsfw') === 'on',
      showNsfw: form.get('showNsfw') === 'on',
      isBot: form.get('isBot') === 'on',
    };
    try {
      await locals.api.settings.update(values);
    } catch (error) {
      const { status, errors } = formErrorsFrom(error, PROFILE_FIELDS);
      return fail(status, { profile: { values, errors } });
    }
    return { profile: { saved: true } };
  },

  password: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const text = texts(form);
    const encryptedBackup = text('encryptedBackup') || null;
    let endedSessions: number;
    try {
      ({ endedSessions } = await locals.api.auth.changePassword({
        currentPassword: text('currentPassword'),
        newPassword: text('newPassword'),
        encryptedBackup,
      }));
    } catch (error) {
      const { status, errors } = formErrorsFrom(error, PASSWORD_FIELDS);
      return fail(status, { password: { errors } });
    }
    return { password: { changed: true, endedSessions } };
  },

  privacy: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const value = String((await request.formData()).get('messagePrivacy') ?? '');
    const parsed = messagePrivacySchema.safeParse(value);
    if (!parsed.success) {
      return fail(400, {
        privacy: { errors: { messagePrivacy: 'Choose who may message you.' } as FormErrors },
      });
    }
    try {
      await locals.api.messages.setPrivacy({ messagePrivacy: parsed.data });
    } catch (error) {
      const { status, errors } = formErrorsFrom(error, []);
      return fail(status, { privacy: { errors } });
    }
    return { privacy: { saved: true } };
  },

  registerKey: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const text = texts(await request.formData());
    if (!text('did')) {
      return fail(400, {
        key: {
          errors: {
            form: 'Creating your key needs JavaScript: your browser makes it.',
          } as FormErrors,
        },
      });
    }
    try {
      await locals.api.auth.registerKey({
        publicKey: text('publicKey'),
        did: text('did'),
        encryptedBackup: text('encryptedBackup'),
        currentPassword: text('password'),
      });
    } catch (error) {
      const { status, errors } = formErrorsFrom(error, []);
      return fail(status, { key: { errors } });
    }
    return { key: { registered: true } };
  },
};
