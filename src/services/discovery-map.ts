// A discovery's map and the diff of two discoveries (issue 34), from the stored page rows; the rules are pure, in
// src/domain/discovery-map.ts.
import { discoveryPages } from '../db/queries/discoveries.js';
import {
  buildDiscoveryMap,
  diffDiscoveryMaps,
  type DiscoveryDiff,
  type DiscoveryMap,
} from '../domain/discovery-map.js';
import { InvalidError } from '../domain/errors.js';
import { patternOf } from '../domain/page-patterns.js';
import type { ServiceContext } from './context.js';
import { discoveryView, requireDiscovery, type DiscoveryView } from './discoveries.js';

/** The map of a discovery's stored pages. */
export async function mapOf(services: ServiceContext, discoveryId: string): Promise<DiscoveryMap> {
  return buildDiscoveryMap(await discoveryPages(services.db, discoveryId), patternOf);
}

/** The discovery with its map: its page patterns, their pages, titles, forms and actions, the links between them. */
export async function getDiscoveryMap(
  services: ServiceContext,
  projectId: string,
  shortId: string,
): Promise<DiscoveryMap & { discovery: DiscoveryView }> {
  const row = await requireDiscovery(services, projectId, shortId);
  return { discovery: discoveryView(row), ...(await mapOf(services, row.id)) };
}

/** What `shortId` found that `against` had not, and the other way round (both of one application). */
export async function getDiscoveryDiff(
  services: ServiceContext,
  projectId: string,
  shortId: string,
  against: string,
): Promise<DiscoveryDiff & { from: string; to: string }> {
  const after = await requireDiscovery(services, projectId, shortId);
  const before = await requireDiscovery(services, projectId, against);
  if (before.application_id !== after.application_id)
    throw new InvalidError(
      `against: discovery ${against} explored another application (${before.application_short_id}); compare discoveries of one application`,
    );
  const diff = diffDiscoveryMaps(await mapOf(services, before.id), await mapOf(services, after.id));
  return { from: against, to: shortId, ...diff };
}
