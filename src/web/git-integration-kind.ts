import type { FieldErrors, FormBody } from './form-kit.js';

// Which boxes of the Git integration form apply to which kind of integration. With JavaScript
// (assets/git-kind.js) the boxes that do not apply are hidden and disabled, so they are not sent. Without it every
// box shows, and a value typed into one that does not apply is refused at that box: silently dropping it (as the
// form once did with an App ID typed while "An access token" was chosen) would save something other than what the
// person saw.

export type IntegrationKind = 'github-app' | 'github-token' | 'gitlab';

/** The `data-kinds` of each box: the kinds it applies to (a box not listed applies to every kind). */
export const fieldKinds: Record<'appId' | 'privateKey' | 'token', IntegrationKind[]> = {
  appId: ['github-app'],
  privateKey: ['github-app'],
  token: ['github-token', 'gitlab'],
};

const refusal: Record<IntegrationKind, Record<string, string>> = {
  'github-app': {
    token:
      'a GitHub App signs in with its App ID and private key, not a token: empty this box, or choose an access token',
  },
  'github-token': {
    appId: 'only a GitHub App has an App ID: empty this box, or choose a GitHub App',
    privateKey: 'only a GitHub App has a private key: empty this box, or choose a GitHub App',
  },
  gitlab: {
    appId: 'GitLab signs in with an access token only: empty this box, or choose GitHub as a GitHub App',
    privateKey: 'GitLab signs in with an access token only: empty this box, or choose GitHub as a GitHub App',
  },
};

export const isIntegrationKind = (value: string | undefined): value is IntegrationKind =>
  value === 'github-app' || value === 'github-token' || value === 'gitlab';

/**
 * A refusal at each box that holds a value the chosen kind does not use. `shown` is what the form itself filled in
 * (the stored App ID on an App integration's edit form): left as it was, it is not something the person typed.
 */
export function inapplicableFields(form: FormBody, kind: IntegrationKind, shown: Partial<FormBody> = {}): FieldErrors {
  const errors: FieldErrors = {};
  for (const [field, kinds] of Object.entries(fieldKinds)) {
    const value = form[field]?.trim();
    if (!value || kinds.includes(kind) || value === shown[field]) continue;
    errors[field] = refusal[kind][field]!;
  }
  return errors;
}
