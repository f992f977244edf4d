import { describe, expect, it } from 'vitest';
import type { DiscoveredActionKind } from '../../src/domain/discovery.js';
import {
  classifyControl,
  destructiveWords,
  isSearchForm,
  isUnsafeUrl,
  signOutWords,
  type ControlFacts,
  type FormFacts,
} from '../../src/domain/discovery-safety.js';

const link = (name: string, href = '/somewhere'): ControlFacts => ({ role: 'link', tag: 'a', name, href });
const button = (name: string, more: Partial<ControlFacts> = {}): ControlFacts => ({
  role: 'button',
  tag: 'button',
  name,
  type: 'button',
  ...more,
});
const postForm = { method: 'post' as const, search: false };
/** A control of this name as a link, a button, a menu item and a form's submit button. */
const everyKindOf = (name: string): ControlFacts[] => [
  link(name),
  button(name),
  { role: 'menuitem', tag: 'li', name },
  button(name, { type: 'submit', form: postForm }),
];

describe('classifyControl', () => {
  const signOutNames = [
    'Log out',
    'Logout',
    'Sign out',
    'sign  out',
    'Log off',
    'Abmelden',
    'Ausloggen',
    'Se déconnecter',
    'Déconnexion',
    'Cerrar sesión',
    'Esci',
    'Sair',
    'Uitloggen',
    'Wyloguj się',
    'Logga ut',
    'Выйти',
    'ログアウト',
    '退出登录',
    '로그아웃',
    'Sign out of all devices',
  ];
  it.each(signOutNames)('"%s" signs out, as a link, a button, a menu item or a form button', (name) => {
    for (const control of everyKindOf(name)) expect(classifyControl(control), control.tag).toBe('sign-out');
  });

  it.each(['/logout', '/users/sign_out', '/auth/log-out?next=/', '/account/signout', '/session/logoff'])(
    'a link to %s signs out whatever it is called',
    (href) => {
      expect(classifyControl(link('Bye', href))).toBe('sign-out');
      expect(isUnsafeUrl(href)).toBe(true);
    },
  );

  const destructiveNames = [
    'Delete',
    'Delete order',
    'Remove',
    'Remove member',
    'Discard draft',
    'Destroy',
    'Revoke token',
    'Cancel subscription',
    'Close account',
    'Deactivate user',
    'Unsubscribe',
    'Empty trash',
    'Löschen',
    'Entfernen',
    'Kündigen',
    'Supprimer',
    'Eliminar',
    'Borrar',
    'Elimina',
    'Rimuovi',
    'Excluir',
    'Verwijderen',
    'Usuń',
    'Ta bort',
    'Удалить',
    '削除',
    '删除',
    '삭제',
  ];
  it.each(destructiveNames)('"%s" is destructive on a button, a form button, a menu item and a link', (name) => {
    for (const control of everyKindOf(name)) expect(classifyControl(control), control.tag).toBe('destructive');
  });

  it('a Delete button that only opens a confirmation dialog is still destructive', () => {
    expect(classifyControl(button('Delete project', { hasPopup: 'dialog', expanded: 'false' }))).toBe('destructive');
  });

  it.each(['/orders/7/delete', '/posts/3/destroy', '/team/4/remove', '/newsletter/unsubscribe'])(
    'a link to %s is destructive whatever it is called',
    (href) => {
      expect(classifyControl(link('Go', href))).toBe('destructive');
      expect(isUnsafeUrl(href)).toBe(true);
    },
  );

  it('"Archive" is a verb on a button and a page on a link', () => {
    expect(classifyControl(button('Archive'))).toBe('destructive');
    expect(classifyControl(link('Archive', '/blog/archive'))).toBe('navigate');
  });

  const harmless: [string, ControlFacts, DiscoveredActionKind][] = [
    ['Cancel (closes a dialog)', button('Cancel'), 'other'],
    ['Close', button('Close'), 'other'],
    ['Deleted items (a page)', link('Deleted items', '/trash'), 'navigate'],
    ['Removals (a word containing remove)', link('Removals', '/removals'), 'navigate'],
    ['Sign in', link('Sign in', '/login'), 'navigate'],
    ['Anmelden (German: sign in)', link('Anmelden', '/login'), 'navigate'],
    ['Logbook', link('Logbook', '/logbook'), 'navigate'],
    ['Catalogue', link('Catalogue', '/catalogue'), 'navigate'],
    ['a link to /deleted-orders', link('Old', '/deleted-orders'), 'navigate'],
    ['href="#"', link('Top', '#'), 'other'],
    ['javascript:', link('Do', 'javascript:void(0)'), 'other'],
    ['a plain button', button('Add to cart'), 'other'],
    ['Save (submit of a POST form)', button('Save', { type: 'submit', form: postForm }), 'submit'],
    ['a button without type in a form', button('Create', { type: '', form: postForm }), 'submit'],
    ['input type=submit', { role: 'button', tag: 'input', name: 'Send', type: 'submit', form: postForm }, 'submit'],
    ['input type=image', { role: 'button', tag: 'input', name: 'Go', type: 'image', form: postForm }, 'submit'],
    ['a type=button in a form', button('Add row', { form: postForm }), 'other'],
    ['a search form submit', button('Search', { type: 'submit', form: { method: 'get', search: true } }), 'submit'],
    ['a method=dialog button', button('OK', { type: 'submit', form: { method: 'dialog', search: false } }), 'other'],
  ];
  it.each(harmless)('%s', (_label, facts, kind) => {
    expect(classifyControl(facts)).toBe(kind);
  });

  // Markup shapes of widget libraries, reduced to what the page reads from them.
  const reveals: [string, ControlFacts][] = [
    ['MUI menu button', button('Options', { hasPopup: 'true', expanded: 'false', controlsHidden: true })],
    ['MUI menu button without aria-controls while closed', button('Reports', { hasPopup: 'true' })],
    ['Radix dropdown trigger', button('Account', { hasPopup: 'menu', expanded: 'false' })],
    ['Radix tabs trigger', { role: 'tab', tag: 'button', name: 'Billing', type: 'button' }],
    ['Radix dialog trigger', button('Invite member', { hasPopup: 'dialog', expanded: 'false' })],
    ['Headless UI disclosure (closed: no aria-controls)', button('Shipping details', { expanded: 'false' })],
    ['Bootstrap dropdown on an <a href="#">', { ...link('More', '#'), hasPopup: '', expanded: 'false' }],
    ['Bootstrap modal toggle', button('Launch demo', { opensDialog: true })],
    ['native <summary>', { role: 'button', tag: 'summary', name: 'Advanced options' }],
    ['accordion header controlling a hidden panel', button('What is a plan?', { controlsHidden: true })],
    ['invoker button (commandfor + show-modal)', button('Edit address', { opensDialog: true })],
    ['combobox', { role: 'combobox', tag: 'button', name: 'Country' }],
    ['a type=button in a POST form that opens a popup', button('Pick date', { form: postForm, hasPopup: 'dialog' })],
  ];
  it.each(reveals)('%s reveals', (_label, facts) => {
    expect(classifyControl(facts)).toBe('reveal');
  });

  it('aria-haspopup="false" does not reveal; a disclosure stays a reveal control once open', () => {
    expect(classifyControl(button('Filters', { hasPopup: 'false' }))).toBe('other');
    expect(classifyControl(button('Filters', { expanded: 'true' }))).toBe('reveal');
    expect(classifyControl(button('Filters', { expanded: 'true', hasPopup: 'menu' }))).toBe('reveal');
  });

  it('a menu item link navigates', () => {
    expect(classifyControl({ role: 'menuitem', tag: 'a', name: 'Invoices', href: '/invoices' })).toBe('navigate');
  });
});

describe('isSearchForm', () => {
  const form = (more: Partial<FormFacts>): FormFacts => ({
    method: 'get',
    searchLandmark: false,
    name: '',
    submit: null,
    fields: [{ type: 'text', name: 'x', label: '' }],
    ...more,
  });
  const yes: [string, FormFacts][] = [
    ['role=search', form({ searchLandmark: true })],
    ['type=search', form({ fields: [{ type: 'search', name: 'x', label: '' }] })],
    ['a q field', form({ fields: [{ type: 'text', name: 'q', label: '' }] })],
    [
      'a query field and a category select',
      form({
        fields: [
          { type: 'text', name: 'query', label: '' },
          { type: 'select', name: 'cat', label: 'Category' },
        ],
      }),
    ],
    ['a Search button', form({ submit: 'Search' })],
    ['a German Suchen button', form({ submit: 'Suchen' })],
    ['a French label', form({ fields: [{ type: 'text', name: 'x', label: 'Rechercher des produits' }] })],
    ['a Spanish name', form({ name: 'Buscar' })],
    ['a Japanese button', form({ submit: '検索' })],
  ];
  it.each(yes)('%s is a search form', (_label, facts) => {
    expect(isSearchForm(facts)).toBe(true);
  });
  const no: [string, FormFacts][] = [
    ['POST, even with role=search', form({ method: 'post', searchLandmark: true })],
    ['method=dialog', form({ method: 'dialog', submit: 'Search' })],
    [
      'two text fields',
      form({
        submit: 'Search',
        fields: [
          { type: 'text', name: 'q', label: '' },
          { type: 'text', name: 'city', label: '' },
        ],
      }),
    ],
    ['a password field', form({ searchLandmark: true, fields: [{ type: 'password', name: 'q', label: '' }] })],
    [
      'a sign-in form sent with GET',
      form({ submit: 'Sign in', fields: [{ type: 'email', name: 'email', label: 'Email' }] }),
    ],
    ['a newsletter form', form({ submit: 'Subscribe', fields: [{ type: 'email', name: 'email', label: 'Email' }] })],
    ['a todo form', form({ submit: 'Add', fields: [{ type: 'text', name: '', label: 'New todo' }] })],
    ['no field', form({ submit: 'Search', fields: [] })],
  ];
  it.each(no)('%s is not', (_label, facts) => {
    expect(isSearchForm(facts)).toBe(false);
  });
});

// Every word of the lists, in every place a URL can say it: as a path segment, part of one, a file name, before
// matrix parameters, as a query value, percent-encoded as the browser resolves it.
const hrefShapes: [string, (slug: string) => string][] = [
  ['a segment', (w) => `/${w}`],
  ['a segment with a trailing slash', (w) => `/account/${w}/`],
  ['a segment under an id', (w) => `/orders/7/${w}`],
  ['part of a segment', (w) => `/users/${w}-all`],
  ['a file name', (w) => `/${w}.php`],
  ['before matrix parameters', (w) => `/${w};jsessionid=12`],
  ['a query value', (w) => `/index.php?action=${w}&id=3`],
  ['a query key', (w) => `/items?${w}=3`],
  ['percent-encoded', (w) => new URL(`/konto/${w}`, 'https://shop.test').href],
];
const slugsOf = (word: string) => [
  ...new Set([word.replace(/ /g, '-'), word.replace(/ /g, '_'), word.replace(/ /g, '')]),
];

describe('isUnsafeUrl: the word lists in URLs (generated)', () => {
  const cases = (words: readonly string[], kind: DiscoveredActionKind) =>
    words.flatMap((word) =>
      slugsOf(word).flatMap((slug) => hrefShapes.map(([shape, href]) => [kind, word, shape, href(slug)] as const)),
    );
  it.each([...cases(signOutWords, 'sign-out'), ...cases(destructiveWords, 'destructive')])(
    '%s: "%s" as %s (%s) is never visited, and a link to it is not followed',
    (kind, _word, _shape, href) => {
      expect(isUnsafeUrl(href)).toBe(true);
      expect(classifyControl(link('Go', href))).toBe(kind);
    },
  );

  it.each(['/doLogout', '/logoutAll', '/api/v1/session-logout', '/user/signoutEverywhere', '/auth/LogOff.aspx'])(
    '"logout" glued to other words in %s still signs out',
    (href) => {
      expect(isUnsafeUrl(href)).toBe(true);
      expect(classifyControl(link('Bye', href))).toBe('sign-out');
    },
  );

  const overrides = ['DELETE', 'delete', 'PUT', 'patch', 'POST'];
  const overridePaths = ['/posts/3', '/posts/3?x=1', '/'];
  it.each(overrides.flatMap((m) => overridePaths.map((p) => [m, p] as const)))(
    'a method override ?_method=%s on %s is never visited',
    (method, path) => {
      const href = `${path}${path.includes('?') ? '&' : '?'}_method=${method}`;
      expect(isUnsafeUrl(href)).toBe(true);
      expect(classifyControl(link('Trash it', href))).toBe('destructive');
    },
  );

  it.each([
    '/catalog',
    '/blog/outreach',
    '/logbook',
    '/login',
    '/sign-in',
    '/dialog',
    '/deleted-orders',
    '/removals',
    '/cancellation-policy',
    '/blog/archive',
    '/search?q=shoes',
    '/posts/3?_method=GET',
    '/designs/3',
    '/orders?status=removed',
  ])('%s is harmless', (href) => {
    expect(isUnsafeUrl(href)).toBe(false);
    expect(classifyControl(link('Go', href))).toBe('navigate');
  });
});

describe('classifyControl: every word of the lists as a name (generated)', () => {
  const shapes: [string, (name: string) => ControlFacts][] = [
    ['a link', (name) => link(name)],
    ['a button', (name) => button(name)],
    ['a menu item', (name) => ({ role: 'menuitem', tag: 'li', name })],
    ['a menu button', (name) => button(name, { hasPopup: 'menu', expanded: 'false' })],
    ['a submit of a POST form', (name) => button(name, { type: 'submit', form: postForm })],
  ];
  const names = (words: readonly string[], kind: DiscoveredActionKind) =>
    words.flatMap((word) =>
      [word, word.toUpperCase(), `${word[0]!.toUpperCase()}${word.slice(1)} now`].flatMap((name) =>
        shapes.map(([shape, facts]) => [kind, name, shape, facts(name)] as const),
      ),
    );
  it.each([...names(signOutWords, 'sign-out'), ...names(destructiveWords, 'destructive')])(
    '%s: "%s" on %s',
    (kind, _name, _shape, facts) => {
      expect(classifyControl(facts)).toBe(kind);
    },
  );
});

describe('classifyControl: what a click would send (generated)', () => {
  // Rails UJS `data-method`, Turbo `data-turbo-method`, htmx `hx-delete`: the markup, not the name, says it writes.
  const shapes: [string, ControlFacts][] = [
    ['a link', link('Trash it', '/posts/3')],
    ['a button', button('Trash it')],
    ['a menu item', { role: 'menuitem', tag: 'li', name: 'Trash it' }],
    ['a menu button', button('Trash it', { hasPopup: 'menu', expanded: 'false' })],
    ['a disclosure', button('Trash it', { expanded: 'false', controlsHidden: true })],
    ['a tab', { role: 'tab', tag: 'button', name: 'Trash it', type: 'button' }],
  ];
  const methods: [string, DiscoveredActionKind][] = [
    ['delete', 'destructive'],
    ['DELETE', 'destructive'],
    ['post', 'submit'],
    ['put', 'submit'],
    ['patch', 'submit'],
  ];
  it.each(shapes.flatMap(([shape, facts]) => methods.map(([method, kind]) => [shape, method, kind, facts] as const)))(
    '%s sending %s is %s, never a reveal or a link to follow',
    (_shape, method, kind, facts) => {
      expect(classifyControl({ ...facts, method })).toBe(kind);
    },
  );

  it.each(shapes)('%s with data-method="get" keeps its kind', (_shape, facts) => {
    expect(classifyControl({ ...facts, method: 'get' })).toBe(classifyControl(facts));
  });

  // A submit control of a form that is not a search is never operated, whatever ARIA hints it carries.
  const submits: [string, Partial<ControlFacts>][] = [
    ['<button> without type', { tag: 'button', type: '' }],
    ['<button type=submit>', { tag: 'button', type: 'submit' }],
    ['<input type=submit>', { tag: 'input', type: 'submit' }],
    ['<input type=image>', { tag: 'input', type: 'image' }],
  ];
  const forms: [string, ControlFacts['form']][] = [
    ['a POST form', { method: 'post', search: false }],
    ['a GET form that is not a search', { method: 'get', search: false }],
  ];
  const hints: [string, Partial<ControlFacts>][] = [
    ['no hint', {}],
    ['aria-haspopup', { hasPopup: 'menu' }],
    ['aria-expanded', { expanded: 'false' }],
    ['aria-controls a hidden panel', { controlsHidden: true }],
    ['a dialog toggle', { opensDialog: true }],
    ['role=tab', { role: 'tab' }],
  ];
  const matrix = submits.flatMap(([s, submit]) =>
    forms.flatMap(([f, form]) => hints.map(([h, hint]) => [s, f, h, { ...submit, form, ...hint }] as const)),
  );
  it.each(matrix)('%s in %s with %s submits', (_s, _f, _h, more) => {
    expect(classifyControl({ role: 'button', name: 'Continue', ...more } as ControlFacts)).toBe('submit');
  });
});

describe('isSearchForm: where it is sent (generated)', () => {
  const unsafe = [
    ...signOutWords.map((w) => `/${w.replace(/ /g, '-')}`),
    ...destructiveWords.map((w) => `/items/${w.replace(/ /g, '-')}`),
    '/posts?_method=DELETE',
  ];
  it.each(unsafe)('a search-shaped form sent to %s is not a search', (path) => {
    const action = new URL(path, 'https://shop.test').href;
    expect(
      isSearchForm({
        method: 'get',
        searchLandmark: true,
        name: 'Search',
        submit: 'Search',
        fields: [{ type: 'search', name: 'q', label: '' }],
        action,
      }),
    ).toBe(false);
  });

  it('one sent to /search, or to the page itself, is', () => {
    const facts: FormFacts = {
      method: 'get',
      searchLandmark: true,
      name: '',
      submit: null,
      fields: [{ type: 'search', name: 'q', label: '' }],
    };
    expect(isSearchForm({ ...facts, action: 'https://shop.test/search' })).toBe(true);
    expect(isSearchForm({ ...facts, action: '' })).toBe(true);
  });
});
