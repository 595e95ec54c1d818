#!/bin/sh
# Builds the single executable: dist/pipeline-service, with migrations, static assets and the
# build record embedded, and the SQLite worker's module (a worker's code is not found by the
# compiler's import analysis; it must be included by name). Usage: sh compile.sh [--target TRIPLE]
set -eu
cd "$(dirname "$0")"
mkdir -p build dist
version=$(sed -nE 's/^  "version": "([^"]+)".*/\1/p' deno.json)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
printf '{"version":"%s","commit":"%s","build_time":"%s"}\n' \
  "$version" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > build/build_info.json
deno compile --allow-all \
  --include migrations \
  --include ui/static \
  --include ui/site \
  --include docs \
  --include build/build_info.json \
  --include src/datasources/connectors/sqlite_worker.ts \
  --include src/templates/render_worker.ts \
  --output dist/pipeline-service "$@" main.ts
echo "built dist/pipeline-service ($version, $commit)"
