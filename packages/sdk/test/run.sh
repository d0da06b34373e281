#!/usr/bin/env bash
# The SDK's tests (npm test -w @purse/sdk; the root npm test runs them too, through
# packages/server/test/run.sh). No server and no database: fakes over node:http, tsc, npm pack.
# Lists test files explicitly (Node 20's runner passes with zero tests when given a folder) and
# fails when it finds none.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "packages/sdk/test/run.sh: no test files found" >&2
  exit 1
fi
if [ "$#" -gt 0 ]; then files=("$@"); fi

node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=120000 "${files[@]}"
