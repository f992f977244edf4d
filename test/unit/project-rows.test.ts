import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { findProjectRow, listProjectRows, updateProjectRow } from '../../src/db/queries/project-rows.js';
import { createScenario, getScenario } from '../../src/db/queries/scenarios.js';
import { saveProjectFile } from '../../src/db/queries/project-files.js';
import { databaseKinds, freshDatabase } from '../support/app-context.js';

// The shared queries behind every project's named resources (scenarios, configs, device presets, environments…):
// a row is reached only through its own project, lists come in one order, and an update writes what it is given.

describe.each(databaseKinds)('project rows (%s)', (kind) => {
  let db: DB;
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    db = await freshDatabase(kind);
    mine = (await seedProject(db, { organization: 'Org A', project: 'Mine' })).projectId;
    theirs = (await seedProject(db, { organization: 'Org B', project: 'Theirs' })).projectId;
  });
  afterAll(() => db.destroy());

  const scenario = (projectId: string, name: string) =>
    createScenario(db, projectId, { name, description: 'about ' + name, instructions: 'do ' + name });

  it('finds a row by any column only within its project, also in a table without an id', async () => {
    const created = await scenario(mine, 'Checkout');
    await saveProjectFile(db, {
      project_id: theirs,
      name: 'avatar.png',
      size_bytes: 3,
      type: 'png',
      mime_type: 'image/png',
      blob_key: 'k',
    });

    expect((await findProjectRow(db, 'scenarios', mine, 'short_id', created.shortId))?.name).toBe('Checkout');
    expect(await findProjectRow(db, 'scenarios', theirs, 'short_id', created.shortId)).toBeUndefined();
    const row = (await findProjectRow(db, 'scenarios', mine, 'short_id', created.shortId))!;
    expect((await findProjectRow(db, 'scenarios', mine, 'id', row.id))?.short_id).toBe(created.shortId);
    expect(await findProjectRow(db, 'scenarios', theirs, 'id', row.id)).toBeUndefined();
    expect((await findProjectRow(db, 'project_files', theirs, 'name', 'avatar.png'))?.mime_type).toBe('image/png');
    expect(await findProjectRow(db, 'project_files', mine, 'name', 'avatar.png')).toBeUndefined();
  });

  it('lists only the project rows, by the column and then by id where they tie', async () => {
    const projectId = (await seedProject(db, { organization: 'Org C', project: 'Listed' })).projectId;
    for (const name of ['b', 'a', 'b', 'c', 'a']) await scenario(projectId, name);
    await scenario(theirs, 'a');

    const rows = await listProjectRows(db, 'scenarios', projectId, 'name');
    expect(rows.map((r) => r.name)).toEqual(['a', 'a', 'b', 'b', 'c']);
    expect(rows.every((r) => r.project_id === projectId)).toBe(true);
    const ids = (name: string) => rows.filter((r) => r.name === name).map((r) => r.id);
    for (const name of ['a', 'b']) expect(ids(name)).toEqual([...ids(name)].sort());
  });

  it('updates the given columns, keeps the undefined ones, and writes nothing for an empty change', async () => {
    const created = await scenario(mine, 'Search');
    const other = await scenario(mine, 'Browse');
    const { id } = (await getScenario(db, mine, created.shortId))!;
    const longAgo = '2020-01-01T00:00:00.000Z';
    await updateProjectRow(db, 'scenarios', id, { updated_at: longAgo });

    await updateProjectRow(db, 'scenarios', id, { name: 'Search again', description: undefined }, { touch: true });
    const renamed = (await getScenario(db, mine, created.shortId))!;
    expect(renamed).toMatchObject({ name: 'Search again', description: 'about Search', instructions: 'do Search' });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThan(Date.parse(longAgo));

    await updateProjectRow(db, 'scenarios', id, { description: null });
    expect((await getScenario(db, mine, created.shortId))!.description).toBeNull();

    const before = (await getScenario(db, mine, created.shortId))!;
    await updateProjectRow(db, 'scenarios', id, { name: undefined, instructions: undefined }, { touch: true });
    expect(await getScenario(db, mine, created.shortId)).toEqual(before);
    expect(await getScenario(db, mine, other.shortId)).toMatchObject({ name: 'Browse', updatedAt: other.updatedAt });
  });
});
