// What the dashboard's coverage page of an application shows (issue 34): its newest discovery (running or not), and
// for its latest COMPLETED one the map (patterns with titles, the links between them), what the enabled tests cover
// of it and the discovery's suggested tests. One read of the map serves the coverage and the picture's links.
import { listDiscoveries } from '../db/queries/discoveries.js';
import { latestCompletedDiscovery } from '../db/queries/discovery-suggestions.js';
import type { Coverage, MapPattern } from '../domain/coverage.js';
import { mapPatternsOf } from '../domain/coverage-map.js';
import { requireApplication, type ApplicationView } from './applications.js';
import type { ServiceContext } from './context.js';
import { applicationCoverage } from './coverage.js';
import { discoveryView, type DiscoveryView } from './discoveries.js';
import { mapOf } from './discovery-map.js';
import { getDiscoverySuggestions, type SuggestionView } from './discovery-suggestions.js';
import { listApplicationEnvironments, type EnvironmentView } from './environments.js';

export interface CoverageMapView {
  discovery: DiscoveryView;
  coverage: Coverage;
  patterns: MapPattern[];
  links: { from: string; to: string }[];
  suggestions: SuggestionView[];
}

export interface CoveragePageView {
  application: ApplicationView;
  environments: EnvironmentView[];
  /** The newest discovery of the application, whatever its status. */
  newest: DiscoveryView | null;
  /** The map of the latest completed discovery; null until one completed. */
  mapped: CoverageMapView | null;
}

export async function coveragePageView(
  services: ServiceContext,
  projectId: string,
  applicationShortId: string,
): Promise<CoveragePageView> {
  const application = await requireApplication(services, projectId, applicationShortId);
  const [environments, discoveries, completed] = await Promise.all([
    listApplicationEnvironments(services, projectId, applicationShortId),
    listDiscoveries(services.db, projectId, application.id),
    latestCompletedDiscovery(services.db, projectId, application.id),
  ]);
  const newest = discoveries[0] ? discoveryView(discoveries[0]) : null;
  if (!completed) return { application, environments, newest, mapped: null };
  const map = await mapOf(services, completed.id);
  const patterns = mapPatternsOf(map, completed.start_url);
  const [coverage, { suggestions }] = await Promise.all([
    applicationCoverage(services, {
      projectId,
      applicationId: application.id,
      environmentUrl: completed.start_url,
      map: patterns,
    }),
    getDiscoverySuggestions(services, projectId, completed.short_id),
  ]);
  return {
    application,
    environments,
    newest,
    mapped: { discovery: discoveryView(completed), coverage, patterns, links: map.links, suggestions },
  };
}
