// What the dashboard's applications page shows: every application of the project with its environments.
import type { DB } from '../database.js';
import { listApplications, type ApplicationView } from './applications.js';
import { selectEnvironments } from './environments.js';

export interface ApplicationWithEnvironments extends ApplicationView {
  environments: {
    shortId: string;
    name: string;
    url: string | null;
    buildShortId: string | null;
    isProduction: boolean;
    isDefault: boolean;
  }[];
}

export async function loadApplications(db: DB, projectId: string): Promise<ApplicationWithEnvironments[]> {
  const [applications, environments] = await Promise.all([
    listApplications(db, projectId),
    // One query for all environments of the project, not one per application.
    selectEnvironments(db, projectId)
      .select('a.short_id as application_short_id')
      .orderBy('e.created_at')
      .orderBy('e.id')
      .execute(),
  ]);
  return applications.map((app) => ({
    ...app,
    environments: environments
      .filter((e) => e.application_short_id === app.shortId)
      .map((e) => ({
        shortId: e.short_id,
        name: e.name,
        url: e.url,
        buildShortId: e.build_short_id,
        isProduction: e.is_production,
        isDefault: e.default_environment_id === e.id,
      })),
  }));
}
