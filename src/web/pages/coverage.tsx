import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { oneOf, Pager, pageNumber, uuidPattern, When } from '../components.js';
import {
  coverageOrders,
  coverageRowsPerPage,
  FormTable,
  PatternTable,
  type CoverageOrder,
} from '../coverage-tables.js';
import {
  checkThenWrite,
  FieldError,
  FormProblems,
  invalidAttrs,
  optional,
  readForm,
  SelectField,
} from '../form-kit.js';
import type { FieldErrors, FormBody } from '../form-kit.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { routesAbout } from '../found.js';
import { SiteMapLegend, SiteMapSvg } from '../site-map-svg.js';
import { SuggestionCards } from '../suggestion-cards.js';
import { endedDiscoveryStatuses } from '../../domain/discovery-run.js';
import { layoutSiteMap } from '../../domain/site-map-layout.js';
import { CreateDiscovery } from '../../schemas/discoveries.js';
import { coveragePageView, type CoveragePageView } from '../../services/coverage-page.js';
import { createDiscovery, type DiscoveryView } from '../../services/discoveries.js';
import { acceptSuggestion, rejectSuggestion } from '../../services/discovery-suggestions.js';
import { notFoundAsUndefined } from '../../domain/errors.js';

// An application's coverage (issue 34): the map of its latest completed discovery drawn (covered and uncovered pages
// apart), the tables of its pages and forms with the tests that cover them, the discovery's suggested tests to accept
// or reject, and a form to start a discovery (the only thing shown before the first one). The '/applications' area
// (session, CSRF) is declared by settings.tsx.

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function DiscoveryStatus(props: { d: DiscoveryView; mapped: boolean }) {
  const { d } = props;
  const ended = endedDiscoveryStatuses.includes(d.status);
  return (
    <p class="notice" role="status">
      Discovery <code>{d.shortId}</code> of {d.startUrl} is <span class={`status ${d.status}`}>{d.status}</span>
      {` (${plural(d.pages, 'page')} visited)`}
      {d.error && `: ${d.error}`}.{' '}
      {!ended &&
        (props.mapped
          ? 'The map below is the previous one until it completes.'
          : 'Reload to see the map once it has completed.')}
    </p>
  );
}

function StartDiscoveryForm(props: {
  base: string;
  csrf: string;
  view: CoveragePageView;
  form: FormBody;
  errors: FieldErrors;
}) {
  const { view, form, errors } = props;
  const usable = view.environments.filter((e) => e.url);
  if (usable.length === 0)
    return (
      <p>
        Discovery explores an environment with a URL: {view.application.name} has none.{' '}
        <a href={`${props.base}/applications/${view.application.shortId}/environments/new`}>Add an environment</a>
      </p>
    );
  const chosen = form.environmentShortId ?? usable.find((e) => e.isDefault)?.shortId;
  return (
    <form method="post" action={`${props.base}/applications/${view.application.shortId}/discoveries`}>
      <FormProblems errors={errors} />
      <CsrfField token={props.csrf} />
      <SelectField
        label="Environment"
        name="environmentShortId"
        options={usable.map((e) => [e.shortId, `${e.name} (${e.url})`] as const)}
        value={chosen}
        errors={errors}
      />
      <div class="field">
        <label for="f-intent">What to look at first (optional)</label>
        <textarea id="f-intent" name="intent" rows={2} maxlength={500} {...invalidAttrs('intent', errors)}>
          {form.intent ?? ''}
        </textarea>
        <FieldError name="intent" errors={errors} />
      </div>
      <p>
        <button class="primary" type="submit">
          Start a discovery
        </button>
      </p>
    </form>
  );
}

function CoverageBody(props: {
  base: string;
  csrf: string;
  view: CoveragePageView;
  order: CoverageOrder;
  page: number;
}) {
  const { base, view, order, page } = props;
  const mapped = view.mapped!;
  const { coverage, discovery } = mapped;
  const { patterns, forms } = coverage.totals;
  const titles = new Map(mapped.patterns.flatMap((p) => (p.title ? [[p.pattern, p.title] as const] : [])));
  const layout = layoutSiteMap(
    coverage.patterns.map((p) => ({ pattern: p.pattern, covered: p.covered, forms: p.forms.length })),
    mapped.links,
  );
  const summary = `${plural(patterns.total, 'page pattern')}: ${patterns.covered} covered, ${patterns.uncovered} uncovered`;
  const formSummary = `${plural(forms.total, 'form')}: ${forms.covered} covered, ${forms.uncovered} uncovered`;
  const self = `${base}/applications/${view.application.shortId}/coverage`;
  return (
    <>
      <p>
        The map of discovery <code>{discovery.shortId}</code> from {discovery.startUrl}, completed{' '}
        <When at={discovery.finishedAt} />. A page counts as covered while an enabled test visits it; a form while one
        acts on it.
      </p>
      <dl class="facts" id="totals">
        <dt>Pages</dt>
        <dd>
          {summary} ({patterns.actedOn} acted on, {patterns.asserted} asserted on)
        </dd>
        <dt>Forms</dt>
        <dd>
          {formSummary} ({forms.submitted} submitted, {forms.asserted} checked after)
        </dd>
        {coverage.outsideMap.length > 0 && (
          <>
            <dt>Not on the map</dt>
            <dd>
              Tests visit {coverage.outsideMap.map((o) => o.pattern).join(', ')}, which the discovery did not reach.
            </dd>
          </>
        )}
      </dl>
      <div class="coverage-grid">
        <section aria-labelledby="map-heading">
          <h2 id="map-heading">Site map</h2>
          <SiteMapLegend navigation={layout.navigation} arcsLeftOut={layout.arcsLeftOut} />
          <SiteMapSvg
            layout={layout}
            titles={titles}
            label={`Site map of ${view.application.name}: ${summary}; ${formSummary}`}
          />
        </section>
        <section aria-labelledby="tables-heading">
          <h2 id="tables-heading">Pages and forms</h2>
          <p>
            Order: {order === 'uncovered' ? <strong>uncovered first</strong> : <a href={self}>uncovered first</a>} ·{' '}
            {order === 'pattern' ? <strong>by path</strong> : <a href={`${self}?order=pattern`}>by path</a>}
          </p>
          <PatternTable base={base} coverage={coverage} titles={titles} order={order} page={page} />
          <FormTable base={base} forms={coverage.forms} order={order} page={page} />
          {Math.max(patterns.total, forms.total) > coverageRowsPerPage && (
            <Pager
              path={self}
              query={{ order: order === 'pattern' ? order : undefined }}
              page={page}
              pageSize={coverageRowsPerPage}
              total={Math.max(patterns.total, forms.total)}
            />
          )}
        </section>
      </div>
      <h2>Suggested tests</h2>
      <SuggestionCards
        base={base}
        applicationShortId={view.application.shortId}
        discoveryShortId={discovery.shortId}
        suggestions={mapped.suggestions}
        forms={coverage.forms}
        csrf={props.csrf}
      />
    </>
  );
}

function coveragePage(c: Context<WebEnv>, view: CoveragePageView, form: FormBody = {}, errors: FieldErrors = {}) {
  const base = c.get('base');
  const csrf = c.get('csrfToken');
  const order = oneOf(c.req.query('order'), coverageOrders) ?? 'uncovered';
  const page = pageNumber(c.req.query('page'));
  const { newest, mapped } = view;
  const showNewest = newest && (!mapped || newest.shortId !== mapped.discovery.shortId);
  return renderPage(
    c,
    { title: `Coverage of ${view.application.name}`, nav: 'applications' },
    <>
      <h1>Coverage of {view.application.name}</h1>
      <p>
        <a href={`${base}/applications`}>Applications</a>
      </p>
      {showNewest && <DiscoveryStatus d={newest} mapped={Boolean(mapped)} />}
      {mapped ? (
        <CoverageBody base={base} csrf={csrf} view={view} order={order} page={page} />
      ) : (
        <p>
          No discovery of {view.application.name} has completed yet, so there is no map. A discovery explores the
          application in a browser, follows its links, fills no form, and maps its pages and forms; then this page shows
          which of them the tests cover and suggests tests for the rest.
        </p>
      )}
      <h2>{mapped ? 'Discover again' : 'Start a discovery'}</h2>
      <StartDiscoveryForm base={base} csrf={csrf} view={view} form={form} errors={errors} />
    </>,
    Object.keys(errors).length > 0 ? 400 : 200,
  );
}

export function registerCoveragePages(web: Hono<WebEnv>, base: string): void {
  const load = (c: Context<WebEnv>) =>
    notFoundAsUndefined(() =>
      coveragePageView(c.get('services'), c.get('session').projectId, c.req.param('app') ?? ''),
    );
  const applicationRoutes = routesAbout(web, load, 'This application');

  applicationRoutes.get('/applications/:app/coverage', (c, view) => coveragePage(c, view));

  applicationRoutes.post('/applications/:app/discoveries', async (c, view) => {
    const form = await readForm(c);
    const started = await checkThenWrite(
      CreateDiscovery,
      { environmentShortId: optional(form.environmentShortId), intent: optional(form.intent) },
      (data) => createDiscovery(c.get('services'), c.get('session').projectId, view.application.shortId, data),
      { at: '', fields: ['environmentShortId', 'intent'] },
    );
    if (!started.ok) return coveragePage(c, view, form, started.errors);
    return c.redirect(`${base}/applications/${view.application.shortId}/coverage`, 303);
  });

  const decide = (what: 'accept' | 'reject') =>
    web.post(`/applications/:app/discoveries/:discovery/suggestions/:id/${what}`, async (c) => {
      const id = c.req.param('id');
      if (!uuidPattern.test(id)) return notFoundPage(c, 'This suggestion');
      const services = c.get('services');
      const projectId = c.get('session').projectId;
      const discovery = c.req.param('discovery');
      if (what === 'reject') {
        await rejectSuggestion(services, projectId, discovery, id);
        return c.redirect(`${base}/applications/${encodeURIComponent(c.req.param('app') ?? '')}/coverage`, 303);
      }
      const accepted = await acceptSuggestion(services, projectId, discovery, id);
      return c.redirect(`${base}/test-cases/${accepted.testCaseId}`, 303);
    });
  decide('accept');
  decide('reject');
}
