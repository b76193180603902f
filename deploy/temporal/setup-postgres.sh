#!/bin/sh
# Create Temporal's databases and bring their schemas up to date (run by temporalio/admin-tools;
# safe to run again on every `docker compose up`).
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${DB_PORT:=5432}"
export SQL_PASSWORD="${POSTGRES_PWD:?}"
until nc -z "$POSTGRES_SEEDS" "$DB_PORT"; do echo 'waiting for PostgreSQL'; sleep 1; done
schema=/etc/temporal/schema/postgresql/v12
for db in temporal temporal_visibility; do
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$DB_PORT" --db "$db" create
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$DB_PORT" --db "$db" setup-schema -v 0.0
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$DB_PORT" --db "$db" update-schema -d "$schema/$dir/versioned"
done
echo 'Temporal schema ready'
