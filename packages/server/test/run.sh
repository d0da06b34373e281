#!/usr/bin/env bash
# The test command (npm test): with no files named, the SDK's tests (packages/sdk/test/run.sh) first,
# then the server's, except the browser tests (`--browser`: npm run test:browser). Lists test
# files explicitly (Node 20's runner has no globs and passes with zero tests when given a folder)
# and fails when it finds none.
# Without DATABASE_URL: PGlite, from one migrated template. With it: a fresh PostgreSQL
# database that this run creates and drops.
# Every run also builds, afresh, a directory of its own (TEST_RUN_DIR, under .tmp/, removed at the
# end): the operator command and the server bundled by esbuild (test/helpers/bundle.ts), which the
# tests spawn instead of the sources through tsx: about 2 s of CPU less per child
# (test/helpers/programs.ts). On PGlite, a test not about the first start unpacks the template below
# into its child's data directory, sparing it creating and migrating the database (~4 s of CPU).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find src test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "test/run.sh: no test files found" >&2
  exit 1
fi
# The browser tests (every file that launches Chromium) are a run of their own, `--browser`
# (npm run test:browser): they need Debian's Chromium, and they drive the dashboard and the hosted
# page, whose API the rest of the suite already proves on both databases, so CI runs them once.
mapfile -t browser_files < <(grep -l 'launchChromium(' "${files[@]}" || true)
whole_suite=false
if [ "${1:-}" = "--browser" ]; then
  files=("${browser_files[@]}")
elif [ "$#" -gt 0 ]; then
  files=("$@")
else
  whole_suite=true
  mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -vxF -f <(printf '%s\n' "${browser_files[@]}"))
  # The whole suite includes the SDK's own tests (no server, no database: packages/sdk/test).
  bash ../sdk/test/run.sh
fi

mkdir -p .tmp
# Left behind only by a run that was killed; none runs for a day.
find .tmp -maxdepth 1 -name 'run-*' -mmin +1440 -exec rm -rf {} +
TEST_RUN_DIR=$(mktemp -d "$PWD/.tmp/run-XXXXXX")
export TEST_RUN_DIR
ADMIN_DATABASE_URL=${DATABASE_URL:-}
cleanup() {
  if [ -n "$ADMIN_DATABASE_URL" ] && [ -n "${TEST_DATABASE_URL:-}" ]; then
    DATABASE_URL=$ADMIN_DATABASE_URL node --import tsx test/helpers/make-template.ts drop-postgres "$TEST_DATABASE_URL" || true
  fi
  rm -rf "$TEST_RUN_DIR" "${shard_dir:-}"
}
trap cleanup EXIT
node --import tsx test/helpers/bundle.ts "$TEST_RUN_DIR" &
bundling=$!

if [ -n "$ADMIN_DATABASE_URL" ]; then
  TEST_DATABASE_URL=$(node --import tsx test/helpers/make-template.ts create-postgres)
  export TEST_DATABASE_URL
  echo "test/run.sh: PostgreSQL database $(basename "$TEST_DATABASE_URL")"
else
  node --import tsx test/helpers/make-template.ts pglite
  echo "test/run.sh: PGlite template ready"
fi
unset DATABASE_URL
wait "$bundling"

# The whole suite runs in shards (test/helpers/shards.ts): files that need no process of their own
# share a few, which saves the loader's start-up (about 4 s of CPU) per file. TEST_SHARDS sets how
# many shared processes (0: every file in its own, as when files are named). Each file is limited
# to 300 s inside its shard; the runner's own limit is then the backstop for a whole shard.
timeout_ms=300000
if [ "$whole_suite" = true ] && [ "${TEST_SHARDS:-4}" != 0 ]; then
  shard_dir=$(mktemp -d "${TMPDIR:-/tmp}/purse-shards-XXXXXX")
  mapfile -t files < <(node --import tsx test/helpers/shards.ts "$shard_dir" "${TEST_SHARDS:-4}" "${files[@]}")
  if [ "${#files[@]}" -eq 0 ]; then
    echo "test/run.sh: test/helpers/shards.ts planned no shards" >&2
    exit 1
  fi
  timeout_ms=1800000
fi

# Three processes at once on two cores: many files spend their time waiting on child processes,
# fakes and timers, and a third fills that time (TEST_CONCURRENCY overrides it).
node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-3}" --test-timeout="$timeout_ms" "${files[@]}"
