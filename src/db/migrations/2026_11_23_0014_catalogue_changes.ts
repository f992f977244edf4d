import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The API answers `GET /v1/test-cases` and `GET /v1/applications` from memory (src/db/queries/project-lists.ts).
// These triggers notify `proctor_catalogue_changes` with the project on commit whenever what those lists show
// changes, whoever writes it (a worker recording steps, another replica, plain SQL): a test case's listed
// columns, an application, and the short id of its default environment or device preset (a deleted one makes
// the application show none: there is no foreign key to update it). Row triggers, so that an update of the
// steps alone (every heal) stays silent; Postgres sends identical payloads of one transaction once.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function proctor_notify_project_change() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then perform pg_notify(tg_argv[0], json_build_object('projectId', old.project_id)::text); end if;
      if tg_op <> 'DELETE' then perform pg_notify(tg_argv[0], json_build_object('projectId', new.project_id)::text); end if;
      return null;
    end
    $$`.execute(db);

  for (const [table, events] of triggers) {
    for (const event of events) {
      await sql`
        create trigger ${sql.id(`${table}_notify_catalogue_${event.split(' ')[0]}`)} after ${sql.raw(event)} on ${sql.table(table)}
        for each row execute function proctor_notify_project_change('proctor_catalogue_changes')`.execute(db);
    }
  }
}

const triggers: [table: string, events: string[]][] = [
  [
    'test_cases',
    [
      'insert',
      'delete',
      'update of project_id, application_id, name, is_enabled, labels, classification, goal, created_at, generation_status',
    ],
  ],
  [
    'applications',
    [
      'insert',
      'delete',
      'update of project_id, short_id, name, kind, default_environment_id, default_device_preset_id, created_at',
    ],
  ],
  ['environments', ['delete', 'update of project_id, short_id']],
  ['device_presets', ['delete', 'update of project_id, short_id']],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, events] of triggers) {
    for (const event of events)
      await sql`drop trigger ${sql.id(`${table}_notify_catalogue_${event.split(' ')[0]}`)} on ${sql.table(table)}`.execute(
        db,
      );
  }
  await sql`drop function proctor_notify_project_change()`.execute(db);
}
