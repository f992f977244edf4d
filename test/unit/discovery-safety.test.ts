import { describe, expect, it } from 'vitest';
import type { DiscoveredActionKind } from '../../src/domain/discovery.js';
import {
  classifyControl,
  isSearchForm,
  isUnsafeUrl,
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
    expect(classifyControl(link(name))).toBe('sign-out');
    expect(classifyControl(button(name))).toBe('sign-out');
    expect(classifyControl({ role: 'menuitem', tag: 'li', name })).toBe('sign-out');
    expect(classifyControl(button(name, { type: 'submit', form: postForm }))).toBe('sign-out');
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
    expect(classifyControl(button(name))).toBe('destructive');
    expect(classifyControl(button(name, { type: 'submit', form: postForm }))).toBe('destructive');
    expect(classifyControl({ role: 'menuitem', tag: 'li', name })).toBe('destructive');
    expect(classifyControl(link(name))).toBe('destructive');
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
