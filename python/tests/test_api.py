"""The Python API (`mdae_rimis`) against the command line: the same outputs byte for byte on
every fixture, the same reports, located errors on every input the tool refuses, and calls
that run at once from two threads with the GIL released."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import mdae_rimis
from conftest import FIXTURES, ROOT, commands, fixture_files, needs_shared, repro_files, run


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def test_the_fixtures_are_there():
    # Every test below walks them: an empty list would pass vacuously.
    assert len(fixture_files()) >= 80


@pytest.mark.parametrize("cmd", commands())
def test_rewrite_matches_the_command_line_on_every_fixture(cmd, monkeypatch):
    monkeypatch.chdir(ROOT)
    compared = refused = 0
    for path in fixture_files():
        name = rel(path)
        cli = run(cmd, name)
        text = path.read_text(encoding="utf-8")
        if cli.returncode == 0:
            result = mdae_rimis.rewrite(text, name=name)
            assert result.text == cli.stdout, f"{name}: the API's output differs from `{cmd} {name}`"
            # The command line prints the same findings to stderr, each item's first line.
            firsts = [str(d) for d in result.diagnostics]
            for line in firsts:
                assert line in cli.stderr, f"{name}: {line!r} not in the command line's stderr"
            compared += 1
        else:
            assert cli.returncode == 1, f"{name}: exit {cli.returncode}: {cli.stderr}"
            with pytest.raises(mdae_rimis.MdaeRimisError) as e:
                mdae_rimis.rewrite(text, name=name)
            assert str(e.value) == cli.stderr, f"{name}: the exception's text differs from the command line's stderr"
            assert e.value.diagnostics, name
            assert cli.stderr.startswith(str(e.value.diagnostics[0])), name
            refused += 1
    assert compared >= 60 and refused >= 5, (compared, refused)


def test_changed_says_whether_the_model_was_rewritten():
    tank = (FIXTURES / "omc-flat" / "WaterTank.mo").read_text(encoding="utf-8")
    assert mdae_rimis.rewrite(tank).changed
    plain = "model P\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend P;\n"
    r = mdae_rimis.rewrite(plain)
    assert not r.changed
    assert r.notes and all(d.code == "N-rimis" for d in r.notes)


@pytest.mark.parametrize("cmd", commands())
def test_check_is_the_json_report(cmd, monkeypatch):
    monkeypatch.chdir(ROOT)
    n = 0
    for path in fixture_files():
        name = rel(path)
        cli = run(cmd, "--report", "json", name)
        if cli.returncode == 2 or not cli.stdout.strip():
            continue
        report = mdae_rimis.check(path.read_text(encoding="utf-8"), name=name)
        assert report == json.loads(cli.stdout), name
        n += 1
    assert n >= 60


@pytest.mark.parametrize("cmd", commands())
def test_canonical_matches_emit_canonical(cmd, monkeypatch):
    monkeypatch.chdir(ROOT)
    for path in fixture_files():
        name = rel(path)
        cli = run(cmd, "--emit", "canonical", name)
        text = path.read_text(encoding="utf-8")
        if cli.returncode == 0:
            assert mdae_rimis.canonical(text, name=name) == cli.stdout, name
        else:
            with pytest.raises(mdae_rimis.MdaeRimisError):
                mdae_rimis.canonical(text, name=name)


@needs_shared
@pytest.mark.parametrize("cmd", commands())
def test_the_reproducers_give_located_errors(cmd, monkeypatch):
    """../shared/repro: each input the command line refuses raises MdaeRimisError whose
    first diagnostic is the command line's first line, file:line:column included."""
    monkeypatch.chdir(ROOT)
    refused = 0
    for path in repro_files():
        name = str(path)
        text = path.read_text(encoding="utf-8")
        for strategy in ("auto", "explicit"):
            cli = run(cmd, "--strategy", strategy, name)
            if cli.returncode == 0:
                assert mdae_rimis.rewrite(text, name=name, strategy=strategy).text == cli.stdout, name
                continue
            with pytest.raises(mdae_rimis.MdaeRimisError) as e:
                mdae_rimis.rewrite(text, name=name, strategy=strategy)
            first = e.value.diagnostics[0]
            assert first.file == name
            assert first.line is not None and first.column is not None, f"{name}: unlocated: {first}"
            assert cli.stderr.splitlines()[0] == str(first), name
            assert first.severity == "error" and first.code, name
            refused += 1
    assert refused >= 8, refused


def test_a_syntax_error_is_located():
    with pytest.raises(mdae_rimis.MdaeRimisError) as e:
        mdae_rimis.rewrite("model M\n  Real x\nequation\n  x = 1;\nend M;\n", name="m.mo")
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.column, d.code, d.severity) == ("m.mo", 3, 1, "E-syntax", "error")
    assert "expected `;`" in d.message
    assert "m.mo:3:1: error: expected `;`" in str(e.value)


def test_a_bad_strategy_is_a_value_error():
    with pytest.raises(ValueError, match="strategy"):
        mdae_rimis.rewrite("model M\nend M;\n", strategy="fast")


def test_two_threads_rewrite_at_once_with_the_same_results():
    files = [p for p in fixture_files() if "invalid" not in p.parts]
    texts = [(rel(p), p.read_text(encoding="utf-8")) for p in files]

    def one(item):
        name, text = item
        try:
            return mdae_rimis.rewrite(text, name=name).text
        except mdae_rimis.MdaeRimisError as e:
            return "error: " + str(e)

    alone = [one(t) for t in texts]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(2):
            assert list(pool.map(one, texts)) == alone
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(one, reversed(texts))) == list(reversed(alone))


def big_model(n: int) -> str:
    """A multimode chain large enough that a rewrite takes a while."""
    decl = "".join(f"  Real x{i}(start = 1, fixed = true);\n" for i in range(n))
    eqs = "".join(
        f"  der(x{i}) = if b then -x{i} + x{i - 1 if i else n - 1} else -2*x{i};\n" for i in range(n))
    return f"model Big\n{decl}  Boolean b;\nequation\n  b = time < 0.5;\n{eqs}end Big;\n"


def test_the_gil_is_released_while_the_pipeline_runs():
    text = big_model(3000)
    t0 = time.perf_counter()
    mdae_rimis.check(text)
    alone = time.perf_counter() - t0
    assert alone > 0.05, f"the model is too small to see the GIL: {alone:.3f} s"
    ticks = 0
    done = threading.Event()

    def work():
        mdae_rimis.check(text)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # With the GIL held for the whole call this thread would not run until it returned.
    assert ticks >= 10, f"the main thread ran {ticks} times during a {alone:.2f} s call"


def test_cdg_dot_matches_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    name = "fixtures/omc-flat/WaterTank.mo"
    for cmd in commands():
        out = tmp_path / "cdg.dot"
        cli = run(cmd, "--check", "--dot", str(out), name)
        assert cli.returncode == 0, cli.stderr
        assert mdae_rimis.cdg_dot((ROOT / name).read_text(encoding="utf-8"), name=name) == out.read_text()


def test_cdg_svg_draws_with_graphviz_or_says_it_is_missing(monkeypatch):
    import shutil

    text = (FIXTURES / "omc-flat" / "WaterTank.mo").read_text(encoding="utf-8")
    if shutil.which("dot"):
        svg = mdae_rimis.cdg_svg(text)
        assert "<svg" in svg and "</svg>" in svg
        assert svg._repr_svg_() == str(svg)
    else:
        print("skipped the drawing: Graphviz's dot is not on PATH (only its error is checked)")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(mdae_rimis.GraphvizNotFound, match="Graphviz"):
        mdae_rimis.cdg_svg(text)


def test_the_version_is_the_command_lines():
    for cmd in commands():
        assert run(cmd, "--version").stdout.strip() == f"mdae-rimis {mdae_rimis.__version__}"


def test_the_stubs_are_installed():
    import mdae_rimis as m

    pkg = Path(m.__file__).parent
    for stub in ("__init__.pyi", "_native.pyi", "omc.pyi", "py.typed"):
        assert (pkg / stub).exists(), stub
