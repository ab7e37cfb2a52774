#!/usr/bin/env bash
# The Python package's part of the test command (scripts/test.sh runs it after cargo test;
# issue 33): the wheel built by maturin (profile ci, as the suite, so the dependencies cargo
# test built are reused), installed in a fresh virtualenv with what its example needs, and its
# tests run there (pytest: python/tests, which also runs examples/python/loop.py) against the
# wheel's `mdae-rimis` command and the cargo-built binary (target/ci/mdae-rimis).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== the Python package: maturin wheel, fresh virtualenv, pytest"
if ! .venv/bin/python -c "import maturin" 2>/dev/null; then
  .venv/bin/pip install --quiet --disable-pip-version-check maturin==1.16.0
fi
# cdg_svg draws with Graphviz: installed where apt can (else its test checks the error only).
if ! command -v dot >/dev/null 2>&1; then
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz; }; } >/dev/null 2>&1 \
    || echo "== graphviz: not installed (cdg_svg's test checks its error only)"
fi
rm -rf target/wheels target/wheel-venv
.venv/bin/maturin build --quiet --profile ci -m python/Cargo.toml --out target/wheels -i .venv/bin/python
python3 -m venv target/wheel-venv
target/wheel-venv/bin/pip install --quiet --disable-pip-version-check target/wheels/mdae_rimis-*.whl \
  pytest rumoca==0.10.2 matplotlib
echo "== $(target/wheel-venv/bin/mdae-rimis --version) installed from $(ls target/wheels)"
cargo build --quiet --profile ci --bin mdae-rimis
MDAE_RIMIS_BIN="$PWD/target/ci/mdae-rimis" target/wheel-venv/bin/python -m pytest python/tests -q -rs
