// Discovery (issue 34): what one page visit finds, and the budget a discovery runs within. Pure data shared by the
// browser explorer (src/browser/discovery/), the discovery workflow and its activities, the database queries and
// the API. The map is built from these without the model; the model only describes pages and suggests tests.

/** How far a discovery may go. It stops at whichever limit comes first. */
export interface DiscoveryBudget {
  /** Distinct URLs visited (each visit is one activity). */
  pages: number;
  /** Controls operated over the whole discovery: reveal controls opened and searches submitted. */
  actions: number;
  /** Wall-clock minutes from the start of the discovery. */
  minutes: number;
}

export const defaultDiscoveryBudget: DiscoveryBudget = { pages: 200, actions: 1_000, minutes: 30 };

/** A form's field as a user sees it. */
export interface DiscoveredField {
  /** The accessible name (label, aria-label, placeholder), '' when it has none. */
  label: string;
  /** The HTML `name` attribute, '' when it has none. */
  name: string;
  /** `input` type (`text`, `email`, `password`, `checkbox`, ...), or `select` / `textarea`. */
  type: string;
  required: boolean;
}

export interface DiscoveredForm {
  /**
   * Stable within a page pattern across visits and discoveries: built from the form's accessible name (or its
   * heading), its method and its fields' names/labels, never from ids that change per render. Two pages of one
   * pattern showing the same form give the same key.
   */
  key: string;
  /** The form's accessible name, else the nearest heading above it, else its submit control's name. */
  name: string;
  method: 'get' | 'post' | 'dialog';
  /** The action's path (pattern form: `/orders/{id}/notes`), '' for none. */
  action: string;
  fields: DiscoveredField[];
  /** The submit control's accessible name, null when the form has none. */
  submit: string | null;
  /** A search form (role=search, a single search/`q` field, GET): the only kind a discovery ever submits. */
  search: boolean;
}

/** What a control does, as judged before touching it (src/domain/discovery-safety.ts decides). */
export type DiscoveredActionKind =
  | 'reveal' // opens a menu, tab, dialog, disclosure: a discovery operates it
  | 'navigate' // a link or a button that goes to another page (followed by its URL, not clicked)
  | 'submit' // submits a form: never operated, except a search form's
  | 'destructive' // delete, remove, archive...: never operated
  | 'sign-out' // log out, sign out: never operated
  | 'other'; // anything else (toggle, counter...): listed, not operated

export interface DiscoveredAction {
  role: string;
  /** The accessible name. */
  name: string;
  kind: DiscoveredActionKind;
}

/** One page visit's findings: the unit the discovery workflow stores. */
export interface VisitedPage {
  /** The URL asked for, normalized (src/domain/page-patterns.ts `normalizeUrl`). */
  url: string;
  /** The URL the page ended on after redirects, normalized. A redirect off the origin is recorded, not followed. */
  finalUrl: string;
  /** The path pattern of `finalUrl`, e.g. `/orders/{id}`. */
  pattern: string;
  /** HTTP status of the main document, 0 when it did not load. */
  status: number;
  title: string;
  /** h1–h3 texts in document order, at most 20. */
  headings: string[];
  forms: DiscoveredForm[];
  actions: DiscoveredAction[];
  /** Same-origin links found on the page, including those revealed by operating controls; normalized, unique. */
  links: string[];
  /** Controls operated on this visit (reveal controls opened, searches submitted): counts against the budget. */
  actionsUsed: number;
  /**
   * Keys of what this visit operated (`role|name` of a control, `search|<form key>` of a search form). Optional
   * (added by the explorer): a workflow passes the keys gathered so far as `skip` to later visits, so the header's
   * menu or search is operated once per discovery rather than once per page.
   */
  operated?: string[];
  /** Why the visit failed (timeout, navigation error), null when it loaded. */
  error: string | null;
}
