// The ground truth of the back office under /d/ (fixtures/discovery-app.ts), written by hand from what a user sees
// in it, not derived from the fixture's code: the page patterns and forms a discovery must find. Shared by the
// explorer's test (test/e2e/discovery-visit.test.ts) and the discovery workflow's (test/e2e/discovery.test.ts).

export const backOfficePatterns = [
  '/d/',
  '/d/orders',
  '/d/orders?page=',
  '/d/orders/{id}',
  '/d/orders/new',
  '/d/orders/{id}/edit',
  '/d/customers',
  '/d/customers/{id}',
  '/d/customers/{id}/orders',
  '/d/products',
  '/d/products/discontinued',
  '/d/products/{id}',
  '/d/products/{id}/reviews',
  '/d/invoices',
  '/d/invoices/{id}',
  '/d/settings',
  '/d/settings/sessions',
  '/d/search?q=',
  '/d/reports',
  '/d/reports/annual',
  '/d/reports/{id}',
  '/d/team',
  '/d/team/roles',
  '/d/team/{id}',
  '/d/help',
  '/d/help/contact',
  '/d/profile',
  '/d/notifications',
  '/d/changelog',
  '/d/terms',
  '/d/invoices/overdue',
];

/**
 * `method action` of each form, with the page pattern it is on and its fields' labels. The header's search form is
 * on every page; it is listed once, on the home page.
 */
export const backOfficeForms: { page: string; form: string; fields: string[] }[] = [
  { page: '/d/', form: 'get /d/search', fields: ['Search'] },
  { page: '/d/orders/new', form: 'post /d/orders', fields: ['Customer', 'Product', 'Quantity', 'Note'] },
  { page: '/d/orders/{id}/edit', form: 'post /d/orders/{id}', fields: ['Customer', 'Product', 'Quantity', 'Note'] },
  { page: '/d/orders/{id}', form: 'post /d/orders/{id}/delete', fields: [] },
  { page: '/d/customers', form: 'post /d/customers', fields: ['Name', 'Email'] },
  { page: '/d/products/{id}/reviews', form: 'post /d/products/{id}/reviews', fields: ['Rating', 'Review'] },
  { page: '/d/settings', form: 'post /d/settings/profile', fields: ['Display name', 'Email'] },
  { page: '/d/settings', form: 'post /d/settings/notifications', fields: ['Email me about orders', 'Weekly digest'] },
  { page: '/d/settings', form: 'post /d/settings/password', fields: ['Current password', 'New password'] },
  { page: '/d/settings/sessions', form: 'post /d/settings/sessions/revoke', fields: [] },
  { page: '/d/team', form: 'post /d/team/invitations', fields: ['Email', 'Role'] },
  { page: '/d/help/contact', form: 'post /d/help/contact', fields: ['Subject', 'Message'] },
  { page: '/d/profile', form: 'post /d/session/end', fields: [] },
];

/** Requests a discovery must never send: sign-out, deletions and removals, downloads, session revocation. */
export const forbiddenRequest = /logout|\/remove|\/delete|\.pdf|\.csv|session\/end|revoke/;

/** Forms of the map (pattern → its forms) against the list: each listed form on its page with its fields' labels. */
export function missingForms(
  formsOf: (pattern: string) => { method: string; action: string; fields: { label: string }[] }[],
): string[] {
  const missing: string[] = [];
  for (const { page, form, fields } of backOfficeForms) {
    const [method, action] = form.split(' ');
    const found = formsOf(page).find((f) => f.method === method && f.action === action);
    if (!found || found.fields.map((f) => f.label).join('|') !== fields.join('|'))
      missing.push(`${form} on ${page} with ${JSON.stringify(fields)}`);
  }
  return missing;
}
