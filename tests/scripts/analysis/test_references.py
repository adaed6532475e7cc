#!/usr/bin/env python3
"""slanalysis.references: the three reference rules."""
import analysis_env as env
from slanalysis.references import plain_run, summary_references, variant_references


class Run:
    def __init__(self, name, nodes, method, steps=100):
        self.name, self.nodes, self.method, self.steps = name, nodes, method, steps


class References(env.Case):
    def test_plain_run_takes_the_shortest_name(self):
        group = [Run("tf-4node-dense-lrx2-s1", 4, "dense"), Run("tf-4node-dense-s1", 4, "dense"),
                 Run("tf-4node-dense-2xS-s1", 4, "dense"), Run("tf-1node-dense", 1, "dense")]
        self.assertEqual(plain_run(group, 4, "dense").name, "tf-4node-dense-s1")
        self.assertIsNone(plain_run(group, 4, "sparse"))

    def test_summary_references(self):
        group = [Run("b-4node-dense", 4, "dense"), Run("a-4node-dense", 4, "dense"),
                 Run("z-1node-sparse", 1, "sparse"), Run("y-1node-dense", 1, "dense")]
        one, d4 = summary_references(group, None)
        self.assertEqual((one.name, d4.name), ("y-1node-dense", "a-4node-dense"))
        one, _ = summary_references(group, "b-4node-dense")
        self.assertEqual(one.name, "b-4node-dense")
        one, _ = summary_references([Run("z-1node-sparse", 1, "sparse")], None)
        self.assertEqual(one.name, "z-1node-sparse")   # no 1-node dense: the first 1-node run

    def test_variant_references(self):
        vs = [Run("tf-4node-dense-2xS", 4, "dense", 600), Run("tf-4node-dense", 4, "dense", 300),
              Run("tf-1node-dense-equal-updates", 1, "dense", 300),
              Run("tf-1node-dense-equal-tokens", 1, "dense", 1200)]
        d4, d1 = variant_references(vs)
        self.assertEqual((d4.name, d1.name), ("tf-4node-dense", "tf-1node-dense-equal-tokens"))
        d4, d1 = variant_references(vs, "tf-4node-dense-2xS", "tf-1node-dense-equal-updates")
        self.assertEqual((d4.name, d1.name), ("tf-4node-dense-2xS", "tf-1node-dense-equal-updates"))
        self.assertEqual(variant_references(vs, "nope")[0], None)


if __name__ == "__main__":
    env.main()
