#!/usr/bin/env bash
# Byte-for-byte comparison of two builds of mdae-rimis (issue 15: a performance change
# must not change any output). For every input file given (folders are walked for *.mo),
# runs both binaries in the main job (RIMIS) and in --check, and compares stdout, stderr
# (with the binary's path erased) and the exit code. Outputs of the first binary are
# cached in CACHE (default /tmp/mdae-compare/<name of A>) so a baseline runs once.
#
#   scripts/compare_outputs.sh OLD_BINARY NEW_BINARY PATH...
#   TIMEOUT=20 (seconds per run; a run over it counts as "timeout", compared as such)
set -uo pipefail
old=$1 new=$2
shift 2
timeout=${TIMEOUT:-20}
cache=${CACHE:-/tmp/mdae-compare/$(basename "$old")}
mkdir -p "$cache"
files=$(for p in "$@"; do if [ -d "$p" ]; then find "$p" -name '*.mo' | sort; else echo "$p"; fi; done)
run() { # binary, mode, file -> prints "exit code" then stdout then stderr
  local args=()
  [ "$2" = check ] && args=(--check)
  local out err code
  out=$(timeout "$timeout" "$1" "${args[@]}" "$3" 2>/tmp/mdae-compare-err.$$)
  code=$?
  [ $code = 124 ] && code=timeout
  err=$(sed "s#$1#BINARY#g" /tmp/mdae-compare-err.$$)
  printf '%s\n%s\n--stderr--\n%s\n' "$code" "$out" "$err"
}
same=0 differ=0 slow=0
for f in $files; do
  for mode in rimis check; do
    key=$(echo "$f $mode" | md5sum | cut -c1-16)
    [ -f "$cache/$key" ] || run "$old" $mode "$f" >"$cache/$key"
    if [ "$(head -1 "$cache/$key")" = timeout ]; then slow=$((slow + 1)); continue; fi
    if run "$new" $mode "$f" | cmp -s - "$cache/$key"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "DIFFERS ($mode): $f"
    fi
  done
done
echo "identical: $same, different: $differ, skipped (old build over ${timeout} s): $slow"
[ $differ = 0 ]
