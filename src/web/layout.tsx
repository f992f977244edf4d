import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { assetPath } from './assets.js';
import type { WebEnv } from './context.js';
import { navGroups, navItems, type NavKey } from './nav.js';

export interface LayoutProps {
  title: string;
  /** The menu entry this page belongs to (marked as current). */
  nav?: NavKey;
  base: string;
  /** Signed in: the project's name and the logout form's CSRF token. Absent on the sign-in page. */
  signedIn?: { projectName: string; csrfToken: string };
  children?: Child;
}

/** Every page's frame: skip link, header with the menu and the logout form, then `<main>`. */
export function Layout(props: LayoutProps) {
  const { base, signedIn } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* htmx would add a <style> element for its indicators; the Content-Security-Policy allows only the stylesheet. */}
        <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
        <title>{`${props.title} · Proctor`}</title>
        <link rel="stylesheet" href={`${base}${assetPath.css}`} />
        <script src={`${base}${assetPath.htmx}`} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={`${base}/runs`}>
            Proctor
          </a>
          {signedIn && <MainNav base={base} current={props.nav} />}
          {signedIn && (
            <div class="who">
              <span>Project {signedIn.projectName}</span>
              <form class="inline" method="post" action={`${base}/logout`}>
                <CsrfField token={signedIn.csrfToken} />
                <button type="submit">Sign out</button>
              </form>
            </div>
          )}
        </header>
        <main id="main">{props.children}</main>
      </body>
    </html>
  );
}

/**
 * The menu, grouped by what a person does, the current page marked with `aria-current`. No script: on a narrow
 * screen it folds behind a "Menu" link to `#menu` and opens as the `:target` (app.css), so it works as a plain link.
 */
function MainNav(props: { base: string; current: NavKey | undefined }) {
  const currentItem = navItems.find((i) => i.key === props.current);
  return (
    <>
      <a class="menu-open" href="#menu">
        Menu{currentItem && <span class="here">: {currentItem.label}</span>}
      </a>
      <nav id="menu" class="main" aria-label="Main">
        {navGroups.map((group) => {
          const id = `nav-${group.label.toLowerCase().replace(/\W+/g, '-')}`;
          const holdsCurrent = group.items.some((i) => i.key === props.current);
          return (
            <div class={holdsCurrent ? 'group current' : 'group'}>
              <span class="group-label" id={id}>
                {group.label}
              </span>
              <ul aria-labelledby={id}>
                {group.items.map((item) => (
                  <li>
                    <a
                      href={`${props.base}${item.path}`}
                      aria-current={item.key === props.current ? 'page' : undefined}
                    >
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
        <a class="menu-close" href="#main">
          Close the menu
        </a>
      </nav>
    </>
  );
}

/** The hidden field every POST form carries; `verifyCsrf` checks it. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/** Renders a page of the signed-in project inside the layout. */
export function renderPage(
  c: Context<WebEnv>,
  page: { title: string; nav?: NavKey },
  content: Child,
  status: ContentfulStatusCode = 200,
) {
  const session = c.get('session');
  const signedIn = session ? { projectName: session.projectName, csrfToken: c.get('csrfToken') } : undefined;
  return c.html(
    html`<!doctype html>${(
      <Layout title={page.title} nav={page.nav} base={c.get('base')} signedIn={signedIn}>
        {content}
      </Layout>
    )}`,
    status,
  );
}

/** The page for an id that does not exist in the session's project, another project's included. */
export function notFoundPage(c: Context<WebEnv>, what: string) {
  return renderPage(
    c,
    { title: 'Not found' },
    <>
      <h1>Not found</h1>
      <p>{what} does not exist in this project.</p>
    </>,
    404,
  );
}
