// Discovery (issue 34): what a control would do, judged from its markup before anything touches it. Pure.
//
// A discovery opens what only reveals (menus, tabs, disclosures, dialogs) and follows links; it never signs out,
// deletes or submits (a search form excepted). Sign-out and destructive words win over everything else: a
// "Delete" button that merely opens a confirmation dialog is still never pressed, since the next click would be
// the one that deletes. The word lists cover the languages applications commonly ship in.
import type { DiscoveredActionKind } from './discovery.js';

/** What the page says about a control (read by src/browser/discovery/read-page.ts). */
export interface ControlFacts {
  /** The ARIA role, explicit or implicit: `link`, `button`, `tab`, `menuitem`, ... */
  role: string;
  /** The accessible name. */
  name: string;
  /** The element's tag, lower case: `a`, `button`, `input`, `summary`, `div`... */
  tag: string;
  /** A link's href as written (or resolved); null for none. */
  href?: string | null;
  /** `type` of a button or input (`submit`, `button`, `reset`, `image`...); '' when unset. */
  type?: string;
  /** The form the control belongs to (enclosing or `form=`); null when none. */
  form?: { method: 'get' | 'post' | 'dialog'; search: boolean } | null;
  /** `aria-haspopup` ('' when absent). */
  hasPopup?: string;
  /** `aria-expanded` ('' when absent). */
  expanded?: string;
  /** `aria-controls` points at an element that is hidden (or not rendered yet). */
  controlsHidden?: boolean;
  /** The control opens a dialog or popover by markup: `commandfor`/`command`, `popovertarget`, `data-bs-toggle`. */
  opensDialog?: boolean;
  /**
   * The HTTP method a click sends by markup, lower case, '' for none: `data-method` (Rails UJS),
   * `data-turbo-method` (Turbo), `hx-delete`/`hx-post`/... (htmx), `formmethod` of a submit button.
   */
  method?: string;
}

// Matched as whole words (letters and digits around a match do not count), case-insensitively.
// prettier-ignore
export const signOutWords = [
  'log out', 'logout', 'log off', 'logoff', 'sign out', 'signout', 'sign off',
  'abmelden', 'ausloggen', 'abmeldung', // de
  'se déconnecter', 'déconnecter', 'deconnecter', 'déconnexion', 'deconnexion', // fr
  'cerrar sesión', 'cerrar sesion', 'desconectarse', 'salir', // es
  'esci', 'disconnetti', // it
  'sair', 'terminar sessão', 'encerrar sessão', // pt
  'uitloggen', 'afmelden', // nl
  'wyloguj', 'wyloguj się', // pl
  'logga ut', 'log ud', 'logg ut', // sv, da, no
  'odhlásit', 'kijelentkezés', 'çıkış yap', 'çıkış', 'выйти', 'выход', 'вийти', 'вихід', // cs, hu, tr, ru, uk
  'ログアウト', 'サインアウト', '退出登录', '退出', '登出', '注销', '註銷', '로그아웃', // ja, zh, ko
];

// prettier-ignore
export const destructiveWords = [
  'delete', 'remove', 'discard', 'destroy', 'erase', 'purge', 'wipe', 'revoke', 'deactivate', 'unsubscribe',
  'cancel subscription', 'cancel order', 'cancel plan', 'cancel account', 'cancel membership',
  'close account', 'close my account', 'terminate', 'empty trash', 'empty cart', 'clear all', 'reset all',
  'löschen', 'entfernen', 'verwerfen', 'kündigen', 'archivieren', 'konto schließen', // de
  'supprimer', 'retirer', 'effacer', 'archiver', 'résilier', // fr
  'eliminar', 'borrar', 'quitar', 'archivar', 'descartar', // es
  'elimina', 'rimuovi', 'cancella', 'archivia', // it
  'excluir', 'remover', 'apagar', 'arquivar', // pt
  'verwijderen', 'verwijder', 'archiveren', 'opzeggen', // nl
  'usuń', 'usun', 'ta bort', 'radera', 'slet', 'slett', 'smazat', 'odstranit', 'törlés', 'töröl', 'sil', // pl sv da no cs hu tr
  'удалить', 'видалити', // ru uk
  '削除', '删除', '刪除', '移除', '삭제', // ja zh ko
];

// Verbs on a button, nouns on a link ("Archive" in a blog's navigation is a page of old posts).
const buttonOnlyWords = ['archive'];

// Escaped for a RegExp; letters whose upper case does not fold back (Turkish ı → I, German ß → SS) match both ways,
// so "ÇIKIŞ YAP" and "KONTO SCHLIESSEN" are what "çıkış yap" and "konto schließen" say.
const escapeRegExp = (word: string) =>
  word
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/ı/g, '[ıi]')
    .replace(/ß/g, '(?:ß|ss)');

function wordsPattern(words: readonly string[]): RegExp {
  const escaped = words.map((w) => escapeRegExp(w).replace(/ /g, '\\s+'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}

/**
 * The same words as they appear in a URL's (decoded) path or query: a whole segment, a part of one between
 * `-`, `_`, `.`, or a query key or value (`/orders/7/delete`, `/konto/löschen`, `?action=logout`,
 * `/logout;jsessionid=1`); a space in the word may be `-`, `_`, `+` or nothing (`sign_out`, `empty-trash`).
 */
function hrefPattern(words: readonly string[], anywhere: readonly string[] = []): RegExp {
  const escaped = words.map((w) => escapeRegExp(w).replace(/ /g, '[-_+ ]?'));
  const bounded = `(?:^|[/_.\\-?&=;,+ ])(?:${escaped.join('|')})(?:[/_.\\-?&=;,#+ ]|$)`;
  return new RegExp(anywhere.length ? `${bounded}|${anywhere.join('|')}` : bounded, 'iu');
}

// "logout" glued to other words in one segment (`/doLogout`, `/logoutAll`) signs out just the same.
const signOutHref = hrefPattern(signOutWords, ['logout', 'logoff', 'signout']);
const destructiveHref = hrefPattern(destructiveWords);
// A method override in a URL (`?_method=DELETE`, Rails and Laravel) asks the server for what a GET is not.
const methodOverride = /[?&]_method=(?!get(?:&|#|$)|head(?:&|#|$))/i;

const signOutName = wordsPattern(signOutWords);
const destructiveName = wordsPattern(destructiveWords);
const buttonOnlyName = wordsPattern(buttonOnlyWords);

/** The path and query of an href, percent-decoded (`/konto/l%C3%B6schen` says löschen), or '' for none. */
function hrefPath(href: string | null | undefined): string {
  if (!href) return '';
  let path = href;
  try {
    const url = new URL(href, 'http://href.invalid');
    path = `${url.pathname}${url.search}`;
  } catch {
    // Not a URL: judged as written.
  }
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** What an href alone says a control does: 'sign-out', 'destructive', or null when its path and query are harmless. */
function hrefKind(path: string): 'sign-out' | 'destructive' | null {
  if (signOutHref.test(path)) return 'sign-out';
  if (destructiveHref.test(path) || methodOverride.test(path)) return 'destructive';
  return null;
}

/**
 * A URL whose path or query signs out, destroys or overrides the method (`/logout`, `/users/sign_out`,
 * `/orders/7/delete`, `?action=logout`, `?_method=DELETE`), in any language the word lists hold: never visited.
 */
export function isUnsafeUrl(href: string): boolean {
  return hrefKind(hrefPath(href)) !== null;
}

const revealRoles = new Set(['tab', 'combobox']);
const linkRoles = new Set(['link']);

/** What operating the control would do; see DiscoveredActionKind. */
export function classifyControl(facts: ControlFacts): DiscoveredActionKind {
  const name = facts.name.replace(/\s+/g, ' ').trim();
  const path = hrefPath(facts.href);
  const isLink = linkRoles.has(facts.role) || (facts.tag === 'a' && !!facts.href);
  const byHref = hrefKind(path);
  if (signOutName.test(name) || byHref === 'sign-out') return 'sign-out';
  if (destructiveName.test(name) || byHref === 'destructive') return 'destructive';
  if (!isLink && buttonOnlyName.test(name)) return 'destructive';
  // A link or button that sends DELETE (or writes) when clicked, whatever its href: `data-method="delete"`.
  const method = (facts.method ?? '').toLowerCase();
  if (method === 'delete') return 'destructive';
  if (method !== '' && method !== 'get' && method !== 'dialog') return 'submit';
  if (isSubmit(facts)) return facts.form?.method === 'dialog' ? 'other' : 'submit';
  if (isReveal(facts)) return 'reveal';
  if (isLink || facts.role === 'menuitem') return navigable(facts.href) ? 'navigate' : 'other';
  return 'other';
}

function isSubmit(facts: ControlFacts): boolean {
  if (!facts.form) return false;
  const type = (facts.type ?? '').toLowerCase();
  if (facts.tag === 'button') return type === '' || type === 'submit';
  if (facts.tag === 'input') return type === 'submit' || type === 'image';
  return false;
}

function isReveal(facts: ControlFacts): boolean {
  if (facts.tag === 'summary') return true;
  if (revealRoles.has(facts.role)) return true;
  const popup = (facts.hasPopup ?? '').toLowerCase();
  if (popup !== '' && popup !== 'false') return true;
  // A disclosure or menu button, open or closed: still the control that reveals (the explorer skips it while open).
  const expanded = (facts.expanded ?? '').toLowerCase();
  if (expanded === 'false' || expanded === 'true') return true;
  return !!facts.controlsHidden || !!facts.opensDialog;
}

/** An href that leads somewhere: not empty, not `#`, not `javascript:`. */
function navigable(href: string | null | undefined): boolean {
  if (!href) return false;
  const text = href.trim();
  return text !== '' && !text.startsWith('#') && !/^javascript:/i.test(text);
}

/** What a form says about itself (read from the page). */
export interface FormFacts {
  method: 'get' | 'post' | 'dialog';
  /** `role="search"` on the form or an ancestor, or the form inside a `<search>` element. */
  searchLandmark: boolean;
  /** The accessible name of the form, or '' */
  name: string;
  /** The submit control's accessible name, or null. */
  submit: string | null;
  fields: { type: string; name: string; label: string }[];
  /** Where it is sent (the resolved action URL), '' or absent: the page itself. */
  action?: string;
}

const searchWords = wordsPattern([
  'search',
  'find',
  'suche',
  'suchen',
  'rechercher',
  'recherche',
  'buscar',
  'búsqueda',
  'cerca',
  'pesquisar',
  'zoeken',
  'szukaj',
  'sök',
  'søg',
  'hledat',
  'keresés',
  'ara',
  'поиск',
  'пошук',
  '検索',
  '搜索',
  '검색',
]);
const searchFieldNames = new Set(['q', 'query', 'search', 's', 'term', 'terms', 'keyword', 'keywords', 'k', 'text']);
const textTypes = new Set(['text', 'search', '']);
const choiceTypes = new Set(['select', 'checkbox', 'radio', 'hidden']);

/**
 * A search form, the only kind a discovery submits: sent with GET, one text field at most (choices such as a
 * category select may sit beside it), no password, and it says it searches (a search landmark, a `type=search`
 * field, a `q`/`query`/`search` field, or a label, name or button that says "search" in a common language), and
 * not sent to a URL that signs out or destroys.
 */
export function isSearchForm(form: FormFacts): boolean {
  if (form.method !== 'get') return false;
  // A "search" sent to /logout or /items/delete is not one.
  if (form.action && isUnsafeUrl(form.action)) return false;
  const typed = form.fields.filter((f) => !choiceTypes.has(f.type));
  if (typed.length !== 1) return false;
  const field = typed[0]!;
  if (field.type !== 'search' && !textTypes.has(field.type)) return false;
  if (form.searchLandmark || field.type === 'search') return true;
  if (searchFieldNames.has(field.name.toLowerCase())) return true;
  return [form.name, form.submit ?? '', field.label].some((text) => searchWords.test(text));
}
