// Discovery: what one state of a page shows, read in a single round trip. The page function walks the DOM
// (forms, their fields and labels, the controls with their ARIA hints, the links) and tags each control and
// form with a `data-proctor-discovery` number, so the explorer can click exactly that element afterwards.
// It returns raw facts only; src/domain/discovery-safety.ts judges them in Node.
import type { Page } from 'playwright-core';
import { pageFunction } from '../page-function.js';

export const markerAttribute = 'data-proctor-discovery';

export interface RawField {
  label: string;
  name: string;
  type: string;
  required: boolean;
}

export interface RawForm {
  marker: number;
  method: 'get' | 'post' | 'dialog';
  /** The resolved action URL, '' when the form has no action attribute. */
  action: string;
  /** The form's accessible name, else the heading inside it or above it, else ''. */
  name: string;
  searchLandmark: boolean;
  submit: string | null;
  fields: RawField[];
  visible: boolean;
}

export interface RawControl {
  marker: number;
  role: string;
  name: string;
  tag: string;
  /** Resolved href of a link, null for none. */
  href: string | null;
  type: string;
  /** Index into the read's `forms` of the control's form, -1 for none. */
  form: number;
  hasPopup: string;
  expanded: string;
  selected: boolean;
  controlsHidden: boolean;
  opensDialog: boolean;
  /** The method a click sends by markup (data-method, data-turbo-method, hx-*, formmethod), '' for none. */
  method: string;
  visible: boolean;
}

export interface RawPage {
  url: string;
  title: string;
  headings: string[];
  forms: RawForm[];
  controls: RawControl[];
}

const readSource = `(attr) => {
  const clean = (t) => (t || '').replace(/\\s+/g, ' ').trim().slice(0, 120);
  const win = window;
  win.__proctorDiscoveryNext = win.__proctorDiscoveryNext || 1;
  const mark = (el) => {
    let n = Number(el.getAttribute(attr));
    if (!n) { n = win.__proctorDiscoveryNext++; el.setAttribute(attr, String(n)); }
    return n;
  };
  const visible = (el) => (el.checkVisibility ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : !!el.offsetParent);
  const textOf = (root, skip) => {
    let out = '';
    const walk = (node) => {
      for (const c of node.childNodes) {
        if (c.nodeType === 3) out += c.textContent;
        else if (c.nodeType === 1 && c !== skip) {
          const tag = c.tagName;
          if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || c.getAttribute('aria-hidden') === 'true') continue;
          if (tag === 'IMG') out += ' ' + (c.getAttribute('alt') || '') + ' ';
          else if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') continue;
          else walk(c);
        }
      }
    };
    walk(root);
    return clean(out);
  };
  const byIds = (ids) => ids.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean);
  const nameOf = (el) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) { const t = clean(byIds(labelledBy).map((e) => textOf(e)).join(' ')); if (t) return t; }
    const aria = clean(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.tagName;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'INPUT' && ['submit', 'button', 'reset'].includes(type)) return clean(el.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    if (tag === 'INPUT' && type === 'image') return clean(el.getAttribute('alt') || el.value) || 'Submit';
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') {
      const labels = el.labels ? [...el.labels].map((l) => textOf(l, el)).join(' ') : '';
      return clean(labels) || clean(el.getAttribute('placeholder')) || clean(el.getAttribute('title'));
    }
    return textOf(el) || clean(el.getAttribute('title'));
  };
  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\\s+/)[0];
    if (explicit) return explicit;
    const tag = el.tagName;
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (tag === 'A') return el.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'SELECT') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'INPUT') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      return type === 'search' ? 'searchbox' : 'textbox';
    }
    return 'generic';
  };
  const methodOf = (form, submit) => {
    // Enter in a field sends the form with its default button: that button's formmethod wins over the form's.
    const value = submit && submit.hasAttribute('formmethod') ? submit.getAttribute('formmethod') : form.getAttribute('method');
    const m = (value || 'get').toLowerCase();
    return m === 'post' || m === 'dialog' ? m : 'get';
  };
  const sentMethod = (el) => {
    const m = el.getAttribute('data-method') || el.getAttribute('data-turbo-method') || el.getAttribute('formmethod') || '';
    if (m) return m.toLowerCase();
    for (const verb of ['delete', 'put', 'patch', 'post']) if (el.hasAttribute('hx-' + verb) || el.hasAttribute('data-hx-' + verb)) return verb;
    return '';
  };
  const headingSelector = 'h1, h2, h3, h4, h5, h6, [role=heading]';
  const allHeadings = [...document.querySelectorAll(headingSelector)];
  const formName = (form) => {
    const own = nameOf(form);
    if (form.hasAttribute('aria-label') || form.hasAttribute('aria-labelledby')) { if (own) return own; }
    const inner = form.querySelector(headingSelector);
    if (inner && textOf(inner)) return textOf(inner);
    let above = null;
    for (const h of allHeadings) if (h.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING && !h.contains(form)) above = h;
    return above ? textOf(above) : '';
  };
  const skipTypes = ['hidden', 'submit', 'button', 'reset', 'image'];
  const formEls = [...document.forms];
  const forms = formEls.map((form) => {
    const elements = [...form.elements];
    const fields = elements
      .filter((e) => e.tagName === 'SELECT' || e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && !skipTypes.includes((e.getAttribute('type') || 'text').toLowerCase())))
      .map((e) => ({
        label: nameOf(e),
        name: e.getAttribute('name') || '',
        type: e.tagName === 'INPUT' ? (e.getAttribute('type') || 'text').toLowerCase() : e.tagName.toLowerCase(),
        required: !!e.required || e.getAttribute('aria-required') === 'true',
      }));
    const submit = elements.find((e) => (e.tagName === 'BUTTON' && ['', 'submit'].includes((e.getAttribute('type') || '').toLowerCase())) || (e.tagName === 'INPUT' && ['submit', 'image'].includes((e.getAttribute('type') || '').toLowerCase())));
    return {
      marker: mark(form),
      method: methodOf(form, submit),
      action: submit && submit.hasAttribute('formaction') ? submit.formAction : form.hasAttribute('action') ? form.action : '',
      name: formName(form),
      searchLandmark: !!form.closest('[role=search], search'),
      submit: submit ? nameOf(submit) : null,
      fields,
      visible: visible(form),
    };
  });
  const controlSelector = 'a[href], button, input[type=submit], input[type=button], input[type=reset], input[type=image], summary, [role=button], [role=link], [role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=switch], [aria-haspopup], [data-bs-toggle], [data-toggle], [popovertarget], [commandfor], [data-method], [data-turbo-method], [hx-delete], [hx-put], [hx-patch], [hx-post]';
  const dialogToggles = ['modal', 'dropdown', 'collapse', 'tab', 'pill', 'offcanvas', 'popover'];
  const controls = [];
  for (const el of document.querySelectorAll(controlSelector)) {
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
    const controlled = byIds(el.getAttribute('aria-controls') || '');
    const toggle = (el.getAttribute('data-bs-toggle') || el.getAttribute('data-toggle') || '').toLowerCase();
    const command = (el.getAttribute('command') || '').toLowerCase();
    const owner = el.form || null;
    controls.push({
      marker: mark(el),
      role: roleOf(el),
      name: nameOf(el),
      tag: el.tagName.toLowerCase(),
      href: el.tagName === 'A' && el.hasAttribute('href') ? (/^\\s*javascript:/i.test(el.getAttribute('href')) ? el.getAttribute('href') : el.href) : null,
      type: (el.getAttribute('type') || '').toLowerCase(),
      form: owner ? formEls.indexOf(owner) : -1,
      hasPopup: el.getAttribute('aria-haspopup') || '',
      expanded: el.getAttribute('aria-expanded') || '',
      selected: el.getAttribute('aria-selected') === 'true',
      controlsHidden: el.hasAttribute('aria-controls') && (controlled.length === 0 || controlled.some((c) => !visible(c))),
      opensDialog: el.hasAttribute('popovertarget') || (el.hasAttribute('commandfor') && /show-modal|popover/.test(command)) || dialogToggles.includes(toggle) || controlled.some((c) => c.tagName === 'DIALOG' || c.getAttribute('role') === 'dialog'),
      method: sentMethod(el),
      visible: visible(el),
    });
  }
  const headings = [...document.querySelectorAll('h1, h2, h3')].map((h) => textOf(h)).filter(Boolean).slice(0, 20);
  return { url: location.href, title: clean(document.title), headings, forms, controls };
}`;

const read = pageFunction<(attr: string) => RawPage>(readSource);

/** The page's current state: one evaluate, no waiting. */
export async function readPage(page: Page): Promise<RawPage> {
  return page.evaluate(read, markerAttribute);
}
