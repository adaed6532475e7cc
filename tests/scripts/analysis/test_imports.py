#!/usr/bin/env python3
"""scripts/slanalysis as a package: no import cycle, every import points down the layers its
__init__.py lists, and everything imports without matplotlib or numpy.

Imports are read from the source (ast), function-level ones included: the cycle the flat
scripts had (plot.py <-> speedup_map.py) ran through imports inside functions."""
import ast
import os
import subprocess
import sys

import analysis_env as env

PKG_DIR = os.path.join(env.REPO, "scripts", "slanalysis")


def modules():
    """{dotted module name: file path} of every module of the package."""
    found = {}
    for dirpath, _, files in os.walk(PKG_DIR):
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), os.path.dirname(PKG_DIR))
                name = rel[:-3].replace(os.sep, ".")
                found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = \
                    os.path.join(dirpath, f)
    return found


def imports_of(name, path, known):
    """The package's modules that module `name` imports, anywhere in its source."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            if t in known and t != name:
                out.add(t)
    return out


def graph():
    known = modules()
    return {m: imports_of(m, p, known) for m, p in known.items()}


def find_cycle(g):
    """A list of modules forming a cycle, or None."""
    color, stack = {}, []

    def visit(m):
        color[m] = "grey"
        stack.append(m)
        for n in sorted(g[m]):
            if color.get(n) == "grey":
                return stack[stack.index(n):] + [n]
            if n not in color:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        color[m] = "black"
        return None

    for m in sorted(g):
        if m not in color:
            found = visit(m)
            if found:
                return found
    return None


def layers():
    """{module: layer index} from the "Layers" list of slanalysis/__init__.py's docstring:
    one line per layer, module names before a run of spaces, a description after it."""
    with open(os.path.join(PKG_DIR, "__init__.py"), encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read()))
    lines = doc.split("Layers", 1)[1].split("\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    index = {}
    for i, line in enumerate(lines):
        names = line.strip().split("  ", 1)[0].split()
        for n in names:
            index["slanalysis." + n.replace("/", ".")] = i
    return index


def layer_of(module, index):
    if module in index:
        return index[module]
    parts = module.split(".")
    return index.get(".".join(parts[:-1] + ["*"]), index.get(module.rpartition(".")[0] + ".*"))


class Imports(env.Case):
    def test_finds_a_cycle_when_there_is_one(self):
        # the checker itself: the flat scripts' plot <-> speedup_map cycle
        self.assertEqual(find_cycle({"plot": {"speedup_map"}, "speedup_map": {"plot", "vclock"},
                                     "vclock": set()}), ["plot", "speedup_map", "plot"])
        self.assertIsNone(find_cycle({"a": {"b"}, "b": set()}))

    def test_no_cycle(self):
        g = graph()
        self.assertIn("slanalysis.clock", g["slanalysis.variants"])     # the graph is read
        self.assertIsNone(find_cycle(g), "import cycle")

    def test_layers(self):
        g, index = graph(), layers()
        packages = {"slanalysis", "slanalysis.commands"}
        for m in g:
            if m not in packages:
                self.assertIsNotNone(layer_of(m, index), f"{m} is in no layer of slanalysis/__init__.py")
        for m, deps in g.items():
            for d in deps:
                if m in packages or d in packages:
                    continue
                self.assertLessEqual(layer_of(d, index), layer_of(m, index),
                                     f"{m} imports {d}, a later layer")

    def test_imports_without_plotting_libraries(self):
        names = sorted(m for m in modules() if m != "slanalysis.__main__")
        code = ("import importlib, sys\n"
                "class Block:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] in ('matplotlib', 'numpy'):\n"
                "            raise ImportError('blocked: ' + name)\n"
                "sys.meta_path.insert(0, Block())\n"
                f"sys.path.insert(0, {os.path.dirname(PKG_DIR)!r})\n"
                f"for m in {names!r}:\n"
                "    importlib.import_module(m)\n"
                "print('imported', len(sys.modules))\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    env.main()
