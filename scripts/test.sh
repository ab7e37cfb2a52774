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

# OpenModelica's omc, the tool users run (issue 30): shipped in ../shared/tools/omc (not in
# any package registry); setup.sh unpacks it once to ~/.cache and installs clang and the few
# libraries it needs, and the simulation suite runs every fixture's output in it too. An OMC
# set by the caller is used as it is. A fresh clone without ../shared says that omc is skipped.
omc_setup=../shared/tools/omc/setup.sh
if [ -n "${OMC:-}" ]; then
  echo "== omc: OMC=$OMC (set by the caller)"
elif [ -f "$omc_setup" ]; then
  echo "== omc: unpacking ../shared/tools/omc (once) and installing what it needs"
  # omc links each simulation with -llapack -lblas -lgfortran: the unversioned libraries are in
  # Debian's -dev packages, which setup.sh does not install (without them every build fails with
  # "cannot find -llapack").
  need=""
  for p in liblapack-dev libblas-dev libgfortran-12-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
  done
  if [ -n "$need" ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need; } >/dev/null \
      || { echo "== omc: could not install:$need" >&2; exit 1; }
  fi
  if OMC=$(bash "$omc_setup") && [ -x "$OMC" ]; then
    export OMC
    echo "== omc: $("$OMC" --version 2>&1 | head -n 1) at $OMC"
  else
    echo "== omc: setup failed ($omc_setup); the suite fails rather than skip omc silently" >&2
    exit 1
  fi
else
  echo "== omc: skipped: $omc_setup not found (a clone without ../shared); the simulation"
  echo "   suite runs rumoca only and prints 'skipped: omc not found' for each omc run"
fi

# The suite runs optimised (corpus, 100 MB input) with overflow checks and debug
# assertions on (profile `ci` in Cargo.toml). --show-output prints the measured
# counts (corpus N/N, property-test cases) of passing tests.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --profile ci -- --show-output 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# The Python package (issue 33): scripts/test_python.sh builds the wheel, installs it in a
# fresh virtualenv and runs its tests there (pytest).
pystatus=0
bash scripts/test_python.sh 2>&1 | tee -a "$log" || pystatus=1

# One closing line with the totals over every test binary and pytest.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;?$/) p += $i; if ($(i+1) ~ /^failed;?$/) f += $i } }
     /^== the Python package/ { py = 1 }
     py && /^(=+ )?[0-9]+ (passed|failed)/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed,?$/) p += $i; if ($(i+1) ~ /^failed,?$/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
if [ "$status" != 0 ]; then exit "$status"; fi
exit "$pystatus"
