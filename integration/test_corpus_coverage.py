"""The coverage table's own logic (corpus_coverage.py): a singular refusal's diagnosis and the
list of refused files, on lines as the binary prints them."""

import unittest

import corpus_coverage as cc

LINE = (
    "m.mo: error: model M is structurally singular in every valid mode: overdetermined "
    "equations [e96, e107], underdetermined variables [v1, v2, v3, v4, v5, v6, v7, v8, v9]"
)


class DescribeSingular(unittest.TestCase):
    def test_counts_and_first_names(self):
        self.assertEqual(
            cc.describe_singular(LINE, 1),
            "in every valid mode: overdetermined 2: e96, e107; underdetermined 9: "
            "v1, v2, v3, v4, v5, v6, v7, v8, …",
        )

    def test_subscripted_names_and_empty_sets(self):
        line = ("m.mo: error: model M is structurally singular when g: overdetermined "
                "equations [], underdetermined variables [v[1], w[2, 3]]")
        self.assertEqual(
            cc.describe_singular(line, 1),
            "when g: overdetermined 0; underdetermined 2: v[1], w[2, 3]",
        )

    def test_a_line_without_sets_says_so(self):
        self.assertEqual(
            cc.describe_singular("m.mo: error: something else", 1),
            "--check exit 1: no diagnosis on its error line",
        )


class RefusedFiles(unittest.TestCase):
    def test_each_refusal_with_its_place_and_diagnosis(self):
        r = cc.FileResult("M.mo", "refused", 0.1)
        r.error_line = "M.mo:1:7: error: model M is structurally singular in every valid mode"
        r.reason = cc.generalise(r.error_line)
        r.diagnosis = "in every valid mode: overdetermined 1: e1; underdetermined 1: x"
        ok = cc.FileResult("N.mo", "unchanged", 0.1)
        rows = [line for line in cc.refused_files([r, ok]) if line.startswith("| M.mo")]
        self.assertEqual(len(rows), 1)
        self.assertIn("| 1:7 |", rows[0])
        self.assertIn("overdetermined 1: e1", rows[0])
        self.assertEqual(cc.refused_files([ok])[0], "### Refused files: 0")

    def test_too_many_are_not_listed(self):
        many = [cc.FileResult(f"F{i}.mo", "refused", 0.1, "F.mo:1:1: error: x", "x") for i in range(3)]
        self.assertIn("not listed one by one", "\n".join(cc.refused_files(many, most=2)))


if __name__ == "__main__":
    unittest.main()
