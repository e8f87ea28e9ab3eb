"""The package layout: one `citeloop` namespace over five layer folders, imports by layer.

Reads the source with `ast`, so it checks what the modules say, not what happens to be
importable from the repository root.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Lower layers first; a module may import its own layer and those before it.
LAYERS = ["trajectories", "runtime", "filters", "training", "eval"]


def _modules() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts)


def _imported_names(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.lineno, node.module))
    return names


def test_no_module_imports_a_bare_layer_name() -> None:
    bare = [f"{p.relative_to(ROOT)}:{line} imports {name}"
            for p in [*_modules(), *sorted((ROOT / "tests").glob("*.py"))]
            for line, name in _imported_names(p) if name.split(".")[0] in LAYERS]
    assert bare == []


def test_no_layer_imports_a_layer_above_it() -> None:
    upward = []
    for path in _modules():
        own = LAYERS.index(path.relative_to(ROOT).parts[0])
        for line, name in _imported_names(path):
            parts = name.split(".")
            if parts[0] == "citeloop" and len(parts) > 1 and parts[1] in LAYERS and LAYERS.index(parts[1]) > own:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert upward == []


def test_the_installed_package_list_names_every_package_folder() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {".".join(("citeloop", *p.parent.relative_to(ROOT).parts))
               for layer in LAYERS for p in (ROOT / layer).rglob("__init__.py")}
    assert set(config["packages"]) == folders
    assert config["package-dir"] == {f"citeloop.{layer}": layer for layer in LAYERS}


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_under_the_citeloop_name(layer: str) -> None:
    module = __import__(f"citeloop.{layer}", fromlist=["__file__"])
    assert Path(module.__file__).resolve().parent == ROOT / layer


HEAVY = ("torch", "transformers", "trl", "datasets", "openai", "matplotlib", "polars", "bm25s", "ray", "datasketch")


@pytest.mark.parametrize("argv", [["--help"], ["show", "tests/golden/leland_heuristic.jsonl"]], ids=["help", "show"])
def test_help_and_show_load_no_heavy_library(argv: list[str]) -> None:
    """Start-up speed by construction: heavy libraries load only in the commands that use them."""
    import json
    import subprocess
    import sys

    code = ("import contextlib, io, json, sys\n"
            "from citeloop.eval.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main({argv!r})\n"
            "print(json.dumps([code, sorted({m.split('.')[0] for m in sys.modules})]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    exit_code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert exit_code == 0
    assert sorted(set(HEAVY) & set(modules)) == []


def test_no_module_is_over_600_lines_and_no_template_module_is_left() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}
    assert sorted((ROOT / "eval").glob("injection_heldout*.py")) == []


def test_every_module_says_what_it_owns() -> None:
    missing = [str(p.relative_to(ROOT)) for p in _modules()
               if ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None]
    assert missing == []
