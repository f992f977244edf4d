// STAND-IN, TO BE REPLACED AT MERGE (issue 34). The discovery workflow's author wrote this small explorer so the
// workflow, its crash test and its bench run on real Chromium before the real one lands: the real `visitPage`
// (src/browser/discovery/) opens reveal controls, submits searches and judges each control's safety. This one only
// loads the page and reads its title, headings, `a[href]` links and forms, and follows no sign-out or delete link.
// Its one caller is activities/discovery.ts (`explorer` there): swap that import and delete this file.
import type { BrowserContext } from 'playwright-core';
import type { DiscoveredForm, VisitedPage } from '../domain/discovery.js';
import { normalizeUrl, patternOf } from '../domain/page-patterns-standin.js';
import { pageFunction } from './page-function.js';

interface PageFacts {
  title: string;
  headings: string[];
  links: { href: string; text: string }[];
  forms: Omit<DiscoveredForm, 'key'>[];
}

const readPage = pageFunction<() => PageFacts>(`() => {
  const text = (el) => (el?.textContent ?? '').replace(/\\s+/g, ' ').trim();
  const labelOf = (f) =>
    text(f.labels?.[0]) || f.getAttribute('aria-label') || f.getAttribute('placeholder') || '';
  return {
    title: document.title,
    headings: [...document.querySelectorAll('h1, h2, h3')].map(text).filter(Boolean).slice(0, 20),
    links: [...document.querySelectorAll('a[href]')].map((a) => ({ href: a.href, text: text(a) })),
    forms: [...document.forms].map((form) => {
      const fields = [...form.querySelectorAll('input, select, textarea')]
        .filter((f) => !['hidden', 'submit', 'button'].includes(f.type))
        .map((f) => ({
          label: labelOf(f),
          name: f.getAttribute('name') ?? '',
          type: f.tagName === 'INPUT' ? f.type : f.tagName.toLowerCase(),
          required: f.required,
        }));
      const submit = form.querySelector('button:not([type=button]), input[type=submit]');
      const method = (form.getAttribute('method') ?? 'get').toLowerCase();
      const heading = form.closest('section, main, body')?.querySelector('h1, h2, h3');
      return {
        name: form.getAttribute('aria-label') || text(heading) || text(submit) || '',
        method: method === 'post' || method === 'dialog' ? method : 'get',
        action: form.getAttribute('action') ? new URL(form.action).pathname : '',
        fields,
        submit: submit ? text(submit) || submit.value || null : null,
        search: form.getAttribute('role') === 'search' || fields.some((f) => f.type === 'search' || f.name === 'q'),
      };
    }),
  };
}`);

const unsafeLink = /sign.?out|log.?out|delete|remove/i;

export async function visitPage(
  context: BrowserContext,
  url: string,
  opts: { origin: string; timeoutMs: number; maxActions: number },
): Promise<VisitedPage> {
  const page = await context.newPage();
  const asked = normalizeUrl(url);
  try {
    const response = await page.goto(asked, { waitUntil: 'domcontentloaded', timeout: opts.timeoutMs });
    const finalUrl = normalizeUrl(page.url());
    const facts = await page.evaluate(readPage);
    const links = [
      ...new Set(
        facts.links
          .filter((l) => !unsafeLink.test(l.text) && !unsafeLink.test(l.href))
          .map((l) => l.href)
          .filter((href) => /^https?:/.test(href) && new URL(href).origin === opts.origin)
          .map(normalizeUrl),
      ),
    ];
    return {
      url: asked,
      finalUrl,
      pattern: patternOf(finalUrl),
      status: response?.status() ?? 0,
      title: facts.title,
      headings: facts.headings,
      forms: facts.forms.map((f) => ({
        ...f,
        key: `${f.name}|${f.method}|${f.fields.map((x) => x.name || x.label).join(',')}`,
      })),
      actions: [],
      links,
      actionsUsed: 0,
      error: null,
    };
  } catch (err) {
    return {
      url: asked,
      finalUrl: asked,
      pattern: patternOf(asked),
      status: 0,
      title: '',
      headings: [],
      forms: [],
      actions: [],
      links: [],
      actionsUsed: 0,
      error: err instanceof Error ? err.message.split('\n')[0]! : String(err),
    };
  } finally {
    await page.close().catch(() => undefined);
  }
}
