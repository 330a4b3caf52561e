#!/usr/bin/env bash
# Checks that every FlatBuffers schema in fbs/ is an additive evolution of its version at a base
# commit (default HEAD~1), the FlatBuffers counterpart of `buf breaking`:
#   1. `flatc --conform OLD NEW` (flatc 2.0.8): no field moved to another slot (reordered or
#      removed before others), no field type changed, no enum value renumbered;
#   2. every table, struct, enum and union of the old schema, each of its fields (a deprecated
#      field still counts) and each enum value still exists under its name: flatc does not
#      notice a field removed from the end of a table, a renamed field, a removed table or enum
#      value. The names come from `flatc --jsonschema` of both versions.
# A schema that is new since the base is skipped; one that was removed fails. Without a base
# commit (the first commit, a shallow clone) there is nothing to compare and the check passes.
# Usage: tools/generate/fbs-conform.sh [BASE_REF]   Needs flatc, jq and git.
set -euo pipefail
cd "$(dirname "$0")/../.."

base=${1:-HEAD~1}
for tool in flatc jq git; do
  command -v "$tool" >/dev/null || { echo "fbs-conform: $tool not found" >&2; exit 2; }
done
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "fbs-conform: no commit $base: nothing to compare"
  exit 0
fi
mapfile -t schemas < <(git ls-tree --name-only "$base" -- fbs/ | grep -E '\.fbs$' || true)
if [ ${#schemas[@]} -eq 0 ]; then
  echo "fbs-conform: no fbs/*.fbs at $base: nothing to compare"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old/fbs" "$tmp/probe"
for schema in "${schemas[@]}"; do git show "$base:$schema" >"$tmp/old/$schema"; done

# The JSON Schema of a schema file and everything it includes. flatc writes one only for a
# root_type, which our payload schemas do not declare: a probe file includes the schema and
# declares an empty root table of its own namespace.
names_of() { # schema file, include dir, output json
  local probe="$tmp/probe/conform_probe.fbs"
  printf 'include "%s";\nnamespace conform_probe;\ntable Probe {}\nroot_type Probe;\n' "$(basename "$1")" >"$probe"
  flatc --jsonschema -o "$tmp/probe" -I "$2" "$probe" >/dev/null 2>"$tmp/probe/err" || { cat "$tmp/probe/err"; return 1; }
  mv "$tmp/probe/conform_probe.schema.json" "$3"
}

# What of OLD is gone from NEW, one line each (nothing when every name is kept).
missing_names() { # old json, new json
  jq -r -n --slurpfile old "$1" --slurpfile new "$2" '
    ($old[0].definitions | del(.conform_probe_Probe)) as $o | $new[0].definitions as $n |
    $o | to_entries[] | .key as $name | .value as $was |
    if $n[$name] == null then "\($name) was removed"
    else
      (($was.properties // {}) | keys_unsorted[] | . as $f | select(($n[$name].properties // {}) | has($f) | not)
        | "field \($name).\($f) was removed or renamed"),
      (($was.enum // [])[] | . as $v | select(($n[$name].enum // []) | index([$v]) == null)
        | "enum value \($name).\($v) was removed or renamed")
    end'
}

failed=0
checked=0
for schema in "${schemas[@]}"; do
  if [ ! -f "$schema" ]; then
    echo "FAIL $schema: the schema was removed (FlatBuffers schemas change additively only)"
    failed=$((failed + 1))
    continue
  fi
  checked=$((checked + 1))
  problems=""
  if ! out=$(flatc --conform "$tmp/old/$schema" --conform-includes "$tmp/old/fbs" -I fbs "$schema" 2>&1); then
    problems=$(printf '%s\n' "$out" | sed 's/^ *//' | grep -v -E '^(error:|flatc:)? *$' || true)
  fi
  if names_of "$tmp/old/$schema" "$tmp/old/fbs" "$tmp/old.json" && names_of "$schema" fbs "$tmp/new.json"; then
    gone=$(missing_names "$tmp/old.json" "$tmp/new.json")
    [ -z "$gone" ] || problems=$(printf '%s\n%s' "$problems" "$gone")
  else
    problems=$(printf '%s\nflatc --jsonschema failed' "$problems")
  fi
  problems=$(printf '%s\n' "$problems" | sed '/^$/d')
  if [ -n "$problems" ]; then
    echo "FAIL $schema is not an additive evolution of $base:"
    printf '%s\n' "$problems" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
done
for schema in fbs/*.fbs; do
  [ -f "$tmp/old/$schema" ] || echo "fbs-conform: $schema is new since $base: nothing to compare"
done

if [ "$failed" -gt 0 ]; then
  echo "fbs-conform: $failed schema(s) changed non-additively against $base (append fields; deprecate, never remove or reorder)"
  exit 1
fi
echo "fbs-conform: $checked schema(s) conform to $base"
