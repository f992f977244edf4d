-- Runs once, when the postgres container initialises an empty volume (docker-entrypoint-initdb.d).
-- Proctor gets its own database; Temporal's auto-setup creates `temporal` and `temporal_visibility` itself.
CREATE DATABASE proctor;
