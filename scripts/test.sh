#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need and
# runs every test. rumoca (the embedded verification simulator) goes into a
# project-local virtualenv, .venv/, pinned to 0.10.2.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! .venv/bin/python -c "import rumoca" 2>/dev/null; then
  echo "== installing rumoca==0.10.2 into .venv"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check rumoca==0.10.2
fi
echo "== rumoca $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("rumoca"))') in .venv"

# The suite runs optimised (corpus, 100 MB input) with overflow checks and debug
# assertions on (profile `ci` in Cargo.toml). --show-output prints the measured
# counts (corpus N/N, property-test cases) of passing tests.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --profile ci -- --show-output 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line with the totals over every test binary.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;?$/) p += $i; if ($(i+1) ~ /^failed;?$/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
