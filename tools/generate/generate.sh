#!/usr/bin/env bash
# Regenerates every contract into libs/contracts/src/gen: proto/ with protoc-gen-es (through buf),
# fbs/ with flatc (Debian's flatbuffers-compiler). Output is committed; CI fails when it drifts.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v flatc >/dev/null || { echo "flatc not found: apt-get install flatbuffers-compiler" >&2; exit 1; }

npx --no-install buf generate

out=libs/contracts/src/gen/fbs
rm -rf "$out"
flatc --ts -o "$out" fbs/*.fbs
# NodeNext ESM needs explicit extensions on relative imports; flatc 2.0.8 writes none.
find "$out" -name '*.ts' -exec sed -i -E "s#(from '\.{1,2}/[^']*)';#\1.js';#" {} +
# flatc writes an empty *_generated.ts for schemas without a root_type; drop those.
find "$out" -name '*_generated.ts' -size -80c -delete
echo "generated: $(find libs/contracts/src/gen -name '*.ts' | wc -l) files"
