#!/usr/bin/env bash
# The test command (npm test): with no files named, the SDK's tests (packages/sdk/test/run.sh) first,
# then the server's. Lists test files explicitly (Node 20's runner has no globs and
# passes with zero tests when given a folder) and fails when it finds none.
# Without DATABASE_URL: PGlite, from one migrated template. With it: a fresh PostgreSQL
# database that this run creates and drops.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find src test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "test/run.sh: no test files found" >&2
  exit 1
fi
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  # The whole suite includes the SDK's own tests (no server, no database: packages/sdk/test).
  bash ../sdk/test/run.sh
fi

if [ -n "${DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(node --import tsx test/helpers/make-template.ts create-postgres)
  export TEST_DATABASE_URL
  ADMIN_DATABASE_URL=$DATABASE_URL
  trap 'DATABASE_URL=$ADMIN_DATABASE_URL node --import tsx test/helpers/make-template.ts drop-postgres "$TEST_DATABASE_URL" || true' EXIT
  echo "test/run.sh: PostgreSQL database $(basename "$TEST_DATABASE_URL")"
else
  node --import tsx test/helpers/make-template.ts pglite
  echo "test/run.sh: PGlite template ready"
fi
unset DATABASE_URL

# Three files at once on two cores: many files spend their time waiting on child processes, fakes
# and timers, and a third file fills that time (TEST_CONCURRENCY overrides it).
node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-3}" --test-timeout=300000 "${files[@]}"
