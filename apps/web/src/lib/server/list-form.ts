import { REPLIES_POLICIES, type RepliesPolicy } from '@swarm/domain';

// What the lists pages' forms send (routes/lists): a replies policy, a checkbox.

export function policyOf(form: FormData): RepliesPolicy | undefined {
  const raw = form.get('repliesPolicy');
  return REPLIES_POLICIES.find((p) => p === raw);
}

export const textOf = (form: FormData, name: string) => String(form.get(name) ?? '');
