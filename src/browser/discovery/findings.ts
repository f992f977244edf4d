// Discovery: what the reads of one visit add up to. Each state of the page (as loaded, and after each control
// operated) is read whole and merged here: forms by key, actions by role, name and kind, links as normalized
// same-origin URLs. Sign-out and destructive links are actions, never links, so nothing downstream visits them.
import type { DiscoveredAction, DiscoveredForm } from '../../domain/discovery.js';
import { classifyControl, isSearchForm, isUnsafeUrl, type ControlFacts } from '../../domain/discovery-safety.js';
import { isIdSegment, normalizeUrl, patternOf } from '../../domain/page-patterns.js';
import type { RawControl, RawForm, RawPage } from './read-page.js';

/** At most this many distinct actions a visit keeps (a table of 500 rows repeats the same few anyway). */
const maxActions = 200;

export interface JudgedControl {
  raw: RawControl;
  action: DiscoveredAction;
  /** Identifies the control across reads and pages: `role|name`. */
  key: string;
}

export interface JudgedForm {
  raw: RawForm;
  form: DiscoveredForm;
}

export interface JudgedPage {
  controls: JudgedControl[];
  forms: JudgedForm[];
}

/** A form as DiscoveredForm says: its key stable across pages of one pattern (ids in its name count as `{id}`). */
export function discoveredForm(raw: RawForm, origin: string): DiscoveredForm {
  const actionUrl = raw.action ? normalizeUrl(raw.action, origin) : null;
  const name = raw.name || raw.submit || '';
  const search = isSearchForm({
    method: raw.method,
    searchLandmark: raw.searchLandmark,
    name,
    submit: raw.submit,
    fields: raw.fields,
    action: raw.action,
  });
  const action = actionUrl ? patternOf(new URL(actionUrl).pathname) : raw.action ? raw.action : '';
  const stableName = name
    .split(/\s+/)
    .map((word) => (isIdSegment(word.replace(/^[#№]/, '')) ? '{id}' : word))
    .join(' ');
  const fieldKeys = raw.fields.map((f) => f.name || f.label).join(',');
  return {
    key: `${raw.method} ${action || '-'} ${stableName} (${fieldKeys})`,
    name,
    method: raw.method,
    action,
    fields: raw.fields.map((f) => ({ label: f.label, name: f.name, type: f.type, required: f.required })),
    submit: raw.submit,
    search,
  };
}

/** Classifies every control of a read and builds its forms. */
export function judge(read: RawPage, origin: string): JudgedPage {
  const forms = read.forms.map((raw) => ({ raw, form: discoveredForm(raw, origin) }));
  const controls = read.controls.map((raw) => {
    const owner = raw.form >= 0 ? forms[raw.form] : undefined;
    const facts: ControlFacts = {
      role: raw.role,
      name: raw.name,
      tag: raw.tag,
      href: raw.href,
      type: raw.type,
      form: owner ? { method: owner.form.method, search: owner.form.search } : null,
      hasPopup: raw.hasPopup,
      expanded: raw.expanded,
      controlsHidden: raw.controlsHidden,
      opensDialog: raw.opensDialog,
      method: raw.method,
    };
    const kind = classifyControl(facts);
    return { raw, key: `${raw.role}|${raw.name}`, action: { role: raw.role, name: raw.name, kind } };
  });
  return { controls, forms };
}

/** The merged findings of one visit. */
export class Findings {
  private readonly forms = new Map<string, DiscoveredForm>();
  private readonly actions = new Map<string, DiscoveredAction>();
  private readonly links = new Set<string>();
  private readonly self = new Set<string>();

  constructor(private readonly origin: string) {}

  /** URLs never listed as links of this page: the page itself. */
  addSelf(url: string): void {
    const normalized = normalizeUrl(url, this.origin);
    if (normalized) this.self.add(normalized);
  }

  add(page: JudgedPage): void {
    for (const { form } of page.forms) if (!this.forms.has(form.key)) this.forms.set(form.key, form);
    for (const { raw, action } of page.controls) {
      const key = `${action.role}|${action.name}|${action.kind}`;
      if (!this.actions.has(key) && this.actions.size < maxActions) this.actions.set(key, action);
      if (raw.href && (action.kind === 'navigate' || action.kind === 'reveal')) this.addLink(raw.href);
    }
  }

  /** A same-origin page URL (a click that navigated, a search's results). */
  addLink(href: string): void {
    const url = normalizeUrl(href, this.origin);
    if (url && !isUnsafeUrl(url)) this.links.add(url);
  }

  result(): { forms: DiscoveredForm[]; actions: DiscoveredAction[]; links: string[] } {
    return {
      forms: [...this.forms.values()],
      actions: [...this.actions.values()],
      links: [...this.links].filter((url) => !this.self.has(url)),
    };
  }
}
