// The coverage map an application's API serves (issue 34): its latest COMPLETED discovery's map, and what its
// enabled tests cover of it (src/services/coverage.ts, src/domain/coverage.ts).
import { latestCompletedDiscovery } from '../db/queries/discovery-suggestions.js';
import type { DiscoveryRow } from '../db/queries/discoveries.js';
import type { Coverage, MapPattern } from '../domain/coverage.js';
import { mapPatternsOf } from '../domain/coverage-map.js';
import { NotFoundError } from '../domain/errors.js';
import { requireApplication } from './applications.js';
import type { ServiceContext } from './context.js';
import { applicationCoverage } from './coverage.js';
import { discoveryView, type DiscoveryView } from './discoveries.js';
import { mapOf } from './discovery-map.js';

/** The discovery's map as the coverage reads it; its tests start on the URL the discovery started on. */
export async function coverageMapOf(services: ServiceContext, discovery: DiscoveryRow): Promise<MapPattern[]> {
  return mapPatternsOf(await mapOf(services, discovery.id), discovery.start_url);
}

/** What the application's enabled tests cover of the map of its latest completed discovery. */
export async function getApplicationCoverage(
  services: ServiceContext,
  projectId: string,
  applicationShortId: string,
): Promise<Coverage & { discovery: DiscoveryView }> {
  const application = await requireApplication(services, projectId, applicationShortId);
  const discovery = await latestCompletedDiscovery(services.db, projectId, application.id);
  if (!discovery)
    throw new NotFoundError(
      'Coverage',
      `application ${application.name} has no COMPLETED discovery to map its pages: start one (POST /v1/applications/${application.shortId}/discoveries) and ask again once it has completed`,
    );
  const coverage = await applicationCoverage(services, {
    projectId,
    applicationId: application.id,
    environmentUrl: discovery.start_url,
    map: await coverageMapOf(services, discovery),
  });
  return { discovery: discoveryView(discovery), ...coverage };
}
