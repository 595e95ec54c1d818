#!/bin/sh
# Builds the single executable, dist/pipeline-service: `deno compile` of main.ts with the files of
# src/lib/assets.ts's EMBEDDED list, the DuckDB addon of the target platform and a build record.
# The work is scripts/compile.ts.
#
#   sh compile.sh [--target TRIPLE] [--output FILE] [--no-check]
#
# deno compile needs Deno's `denort` runtime: it downloads it from Deno's release site, or takes
# the file DENORT_BIN names (same Deno version, the target's platform). docs/development.md,
# "Building the executable", says more.
set -eu
cd "$(dirname "$0")"
exec deno run --allow-all scripts/compile.ts "$@"
