"""omc_notation.adapt on small pieces of omc's notation (no simulator): each step writes the
Modelica it promises, and what it does not cover is left as it was."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import omc_notation  # noqa: E402

TABLE = '''function Modelica.Blocks.Tables.Internal.getTable1DValueNoDer2
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  output Real y;
  external "C" y = ModelicaStandardTables_CombiTable1D_getValue(tableID, icol, u);
end Modelica.Blocks.Tables.Internal.getTable1DValueNoDer2;

class P.M
  parameter Real c.mu_pos[1,1] = 0.0;
  parameter Real c.mu_pos[1,2] = 0.5;
  parameter enumeration(LinearSegments, ContinuousDerivative) c.smoothness = Modelica.Blocks.Types.Smoothness.LinearSegments;
  protected parameter Modelica.Blocks.Types.ExternalCombiTable1D c.tableID = Modelica.Blocks.Types.ExternalCombiTable1D.constructor("NoName", "NoName", c.mu_pos, {2}, c.smoothness, Modelica.Blocks.Types.Extrapolation.LastTwoPoints, false, ",", 0);
  Real c.mu;
  Real c.w;
equation
  c.mu = Modelica.Blocks.Tables.Internal.getTable1DValueNoDer2(c.tableID, 1, c.w);
  c.w = sin(time);
end P.M;
'''


class Adapt(unittest.TestCase):
    def adapt(self, text, cls="P.M"):
        return omc_notation.adapt(text, cls)

    def test_scalarised_arrays_become_quoted_scalars_and_constructors(self):
        text = "class P.M\n  Real a.x[1];\n  Real a.x[2];\n  Real y;\nequation\n  y = sum(a.x) + a.x[2];\nend P.M;\n"
        out, used = self.adapt(text)
        self.assertIn("Real 'a.x[1]';", out)
        self.assertIn("y = sum({'a.x[1]', 'a.x[2]'}) + 'a.x[2]';", out)
        self.assertIn("class CorpusModel", out)
        self.assertIn("quoted names", used)

    def test_one_row_table_is_its_row_and_the_external_functions_go(self):
        out, used = self.adapt(TABLE)
        self.assertIn("'c.mu' = 'c.mu_pos[1,2]';", out)
        self.assertNotIn("tableID", out)
        self.assertNotIn("getTable1DValueNoDer2", out)
        self.assertIn("parameter Integer 'c.smoothness' = 1;", out)
        self.assertIn("tables", used)

    def test_a_table_of_several_rows_is_left_to_the_simulator(self):
        text = TABLE.replace("  parameter Real c.mu_pos[1,2] = 0.5;\n",
                             "  parameter Real c.mu_pos[1,2] = 0.5;\n  parameter Real c.mu_pos[2,1] = 1.0;\n"
                             "  parameter Real c.mu_pos[2,2] = 0.7;\n  parameter Real c.mu_pos[3,1] = 2.0;\n"
                             "  parameter Real c.mu_pos[3,2] = 0.9;\n")
        out, used = self.adapt(text)
        self.assertIn("getTable1DValueNoDer2('c.tableID', 1, 'c.w')", out)
        self.assertNotIn("tables", used)

    def test_omc_builtins_are_written_as_omc_backend_does(self):
        text = ("class P.M\n  Real h;\n  Real m1;\n  Real m2;\nequation\n"
                "  h = $OMC$inStreamDiv(($OMC$PositiveMax(-m1, 1e-7) * 2.0 + $OMC$PositiveMax(-m2, 1e-7) * 3.0) / "
                "($OMC$PositiveMax(-m1, 1e-7) + $OMC$PositiveMax(-m2, 1e-7)), 4.0);\n"
                "  m1 = {time, 2.0 * time}[2];\n  m2 = 1.0;\n"
                "  assert(h > 0, \"h = \" + String(h, 6, 0, true));\nend P.M;\n")
        out, used = self.adapt(text)
        self.assertIn("h = ((max(-m1, 1e-7) * 2.0 + max(-m2, 1e-7) * 3.0) / (max(-m1, 1e-7) + max(-m2, 1e-7)));", out)
        self.assertIn("m1 = (2.0 * time);", out)
        self.assertIn("String(h, significantDigits = 6, minimumLength = 0, leftJustified = true)", out)
        self.assertEqual({"stream operators", "literal subscripts", "String() arguments"} - set(used), set())

    def test_records_by_their_fields_use_the_generated_record_class(self):
        text = ('function P.R "Automatically generated record constructor for P.R"\n'
                "  input Real p;\n  input Real T = 1.0;\n  output R res;\nend P.R;\n\n"
                "function P.f\n  input P.R s;\n  output Real y;\nalgorithm\n  y := s.p / s.T;\nend P.f;\n\n"
                "class P.M\n  Real st.p;\n  Real st.T;\n  Real y;\nequation\n"
                "  st = P.R(time, 2.0);\n  y = P.f(st);\nend P.M;\n")
        out, used = self.adapt(text)
        self.assertIn('record P__R "Automatically generated record"\n  Real p;\n  Real T = 1.0;\nend P__R;', out)
        self.assertIn("y := s.p / s.T;", out)  # field access inside the function is left alone
        self.assertIn("'st.p' = P__R__get__p(P__R(time, 2.0));", out)
        self.assertIn("y = P__f(P__R('st.p', 'st.T'));", out)
        self.assertIn("record equations", used)

    def test_record_getters_see_a_record_nested_in_the_model(self):
        # An mdae-rimis output nests the classes it uses in the model (`P_R` below): the
        # getters of the record equations go inside the model too, where rumoca resolves
        # the record (at top level, `r.p` was an unresolved reference).
        text = ("model P.M\n  function P_R \"Automatically generated record constructor for P.R\"\n"
                "    input Real p;\n    input Real T;\n    output R res;\n  end P_R;\n"
                "  Real st.p;\n  Real st.T;\nequation\n  st = P_R(time, 2.0);\nend P.M;\n")
        out, _ = self.adapt(text)
        getter = out.index("function P_R__get__p")
        self.assertLess(out.index("model "), getter)
        self.assertLess(getter, out.index(f"end {omc_notation.RUMOCA_CLASS};"))


if __name__ == "__main__":
    unittest.main()
