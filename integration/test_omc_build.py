"""The single-mode variants of `benches/omc_build.py` (issue 32): each original is also built
with its mode equations fixed, and only those equations change."""

from __future__ import annotations

import importlib.util
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("omc_build", ROOT / "benches" / "omc_build.py")
omc_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(omc_build)

MODEL = """model Valves
  Real x(start = 1, fixed = true);
  Real f1;
  Real f12;
  Boolean open_1(start = false);
  Boolean open_12(start = false);
  Boolean reopen_1(start = false);
equation
  der(x) = -f1 - f12;
  open_1 = x - f1 > 0;
  open_12 = sin(time +
    1.0) > 0;
  reopen_1 = open_1 and x > 2;
  if open_1 then f1 = x; else f1 = 0; end if;
  if open_12 then f12 = x; else f12 = 0; end if;
end Valves;
"""


class SingleModeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="mdae-omc-build-test-"))
        self.original = self.tmp / "Valves.mo"
        self.original.write_text(MODEL, encoding="utf-8")

    def test_every_mode_equation_of_the_prefix_is_fixed_and_nothing_else(self) -> None:
        for value, word in ((True, "true"), (False, "false")):
            out = omc_build.single_mode(self.original, "open_", value, self.tmp / word)
            text = out.read_text(encoding="utf-8")
            self.assertEqual(out.name, "Valves.mo")
            self.assertIn(f"  open_1 = {word};\n", text)
            # An equation over two lines, up to its semicolon.
            self.assertIn(f"  open_12 = {word};\n  reopen_1", text)
            # Not another name that merely contains the prefix, not the declarations or if-equations.
            self.assertIn("  reopen_1 = open_1 and x > 2;", text)
            self.assertIn("  Boolean open_1(start = false);", text)
            self.assertIn("  if open_1 then f1 = x; else f1 = 0; end if;", text)
            self.assertEqual(len(text.splitlines()), len(MODEL.splitlines()) - 1)

    def test_an_original_without_the_prefix_has_no_variant(self) -> None:
        self.assertIsNone(omc_build.single_mode(self.original, "closed_", True, self.tmp / "none"))
        self.assertFalse((self.tmp / "none").exists())


if __name__ == "__main__":
    unittest.main()
