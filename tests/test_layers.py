"""The pipeline's layers, enforced by reading every import (an import-linter contract without
the dependency).

The folders under `engine/` are the pipeline; a lower stage that imports a higher one, or two
stages of one level that import each other, would let a change anywhere break anything below
it. Private names stay private to their module for the same reason.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"

# Bottom to top, relative to the package. Units on one level are siblings: neither may import
# the other. A unit may be absent (`state`, `scenes` and `serve` are still to come).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("syntax.cachedir",),
    ("compiled",),
    ("frozen",),
    ("errors", "syntax.positions", "syntax.names", "graph"),
    ("syntax", "expr"),
    ("model",),
    ("runtime",),
    ("compiler", "eval"),
    ("state",),
    ("scenes",),
    ("api",),
    ("tools",),
    ("cli", "serve", "__main__"),
)
# (importer, imported): a diagnostic carries a position, `python -m engine` is the CLI, and the
# CLI's `serve` command starts the server (never the other way round).
SIBLINGS_ALLOWED = frozenset({("errors", "syntax.positions"), ("__main__", "cli"), ("cli", "serve")})
# Only the programs on top may use the public facade (`engine/__init__.py`); the facade itself
# may import anything.
ROOT_IMPORTERS = frozenset({"cli", "serve", "__main__"})


@dataclass(frozen=True, order=True)
class Violation:
    """One broken rule at one import, printed as `file:line:` so an editor can jump to it."""

    path: str  # as "engine/model/x.py"
    line: int
    kind: str  # "upward", "sibling", "root", "private" or "unlayered"
    module: str
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.module} imports {self.imported}: {self.why}"


def _modules(root: Path) -> dict[str, Path]:
    """Every module under the package folder `root`, by dotted name (a package is its `__init__`)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = (root.name, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imports(
    module: str, is_package: bool, tree: ast.Module, modules: set[str]
) -> list[tuple[int, str, str]]:
    """(line, imported module, imported name or "") for every import of the package's own modules,
    wherever it stands: top level, in a function, under `if TYPE_CHECKING:`."""
    top = module.split(".")[0]
    here = module.split(".") if is_package else module.split(".")[:-1]
    bound: dict[str, str] = {}  # local name -> the module it is bound to
    found: list[tuple[int, str, str]] = []

    def ours(name: str) -> bool:
        return name == top or name.startswith(top + ".")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    found.append((node.lineno, alias.name, ""))
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 >= len(here):
                    continue
                base = ".".join(here[: len(here) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if not ours(base):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    found.append((node.lineno, sub, ""))
                    bound[alias.asname or alias.name] = sub
                else:
                    found.append((node.lineno, base, "" if alias.name == "*" else alias.name))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            # importlib.import_module("engine.x") with a literal name
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            target = node.args[0].value
            if name in ("import_module", "__import__") and isinstance(target, str) and ours(target):
                found.append((node.lineno, target, ""))

    def resolve(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return bound.get(node.id)
        if isinstance(node, ast.Attribute):
            base = resolve(node.value)
            if base is not None and f"{base}.{node.attr}" in modules:
                return f"{base}.{node.attr}"
        return None

    for node in ast.walk(tree):  # `exact._randomizer` on an imported module
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = resolve(node.value)
            if owner is not None:
                found.append((node.lineno, owner, node.attr))
    return found


def check_layers(root: Path) -> list[Violation]:
    """Every layer violation in the package folder `root` (its name is the package's name)."""
    top = root.name
    modules = _modules(root)
    found: list[Violation] = []
    for module, path in modules.items():
        where = f"{top}/{path.relative_to(root).as_posix()}"
        if module != top and _unit(top, module) is None:
            found.append(Violation(where, 1, "unlayered", module, "", "this module is in no layer of LAYERS"))
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, target, name in _imports(module, path.name == "__init__.py", tree, set(modules)):
            for kind, imported, why in _judge(top, module, target, name):
                found.append(Violation(where, line, kind, module, imported, why))
    return sorted(set(found))


def _unit(top: str, module: str) -> str | None:
    """The layer unit of `module` ("eval", "syntax.positions"), or None if it is in no layer."""
    rel = module[len(top) + 1 :]
    units = [u for layer in LAYERS for u in layer if rel == u or rel.startswith(u + ".")]
    return max(units, key=len) if units else None


def _level(unit: str) -> int:
    """Numbered as docs/architecture.md numbers them, from 0 at the bottom (the cache folder)."""
    return next(i for i, layer in enumerate(LAYERS) if unit in layer)


def _judge(top: str, module: str, target: str, name: str) -> list[tuple[str, str, str]]:
    """(kind, imported, why) for each rule that `module` importing `name` from `target` breaks."""
    out: list[tuple[str, str, str]] = []
    parts = target.split(".")
    private = [i for i, part in enumerate(parts) if _is_private(part)]
    if private and not module.startswith(".".join(parts[: private[0]]) + "."):
        out.append(("private", target, f"{target} is private to {'.'.join(parts[: private[0]])}"))
    if name and _is_private(name) and target != module:
        out.append(("private", f"{target}.{name}", f"'{name}' is private to {target}"))
    src, dst = _unit(top, module), _unit(top, target)
    if module == top or src is None or src == dst:
        return out  # the facade may import anything; a package's modules import each other freely
    if target == top:
        if src not in ROOT_IMPORTERS:
            out.append(("root", target, f"only {', '.join(sorted(ROOT_IMPORTERS))} may import the facade"))
    elif dst is None:
        out.append(("unlayered", target, f"{target} is in no layer of LAYERS"))
    elif _level(src) < _level(dst):
        out.append(("upward", target, f"{src} (level {_level(src)}) is below {dst} (level {_level(dst)})"))
    elif _level(src) == _level(dst) and (src, dst) not in SIBLINGS_ALLOWED:
        out.append(("sibling", target, f"{src} and {dst} are siblings on level {_level(src)}"))
    return out


# -- the real package ---------------------------------------------------------------------------


@cache
def _real() -> tuple[Violation, ...]:
    return tuple(check_layers(ENGINE))


def _parts() -> list[str]:
    """Each top-level module and package of `engine/`: one test each, so a violation points at
    the part whose owner has to fix it."""
    return sorted(p.name for p in ENGINE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists())


@pytest.mark.parametrize("part", _parts())
def test_engine_keeps_its_layers(part: str) -> None:
    found = [v for v in _real() if Path(v.path).parts[1] == part]
    assert not found, "layer violations:\n" + "\n".join(map(str, found))


def test_every_layer_package_says_what_it_may_import() -> None:
    packages = [ENGINE / u.replace(".", "/") for units in LAYERS for u in units]
    packages = [p for p in packages if p.is_dir()]
    assert len(packages) >= 7  # syntax, expr, model, runtime, compiler, eval, tools
    for package in packages:
        init = package / "__init__.py"
        assert init.exists(), f"{package.name} has no __init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{init} has no 'May import' line in its docstring"


# -- the checker on made-up trees -----------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    """A fake `engine` package: the given files plus an `__init__.py` in every folder."""
    package = root / "engine"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in [package, *(p for p in package.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    return package


def _found(package: Path) -> list[tuple[str, int, str, str]]:
    return [(v.path, v.line, v.kind, v.imported) for v in check_layers(package)]


def test_a_deliberate_upward_import_is_caught(tmp_path: Path) -> None:
    package = _tree(
        tmp_path,
        {
            "errors.py": "from .syntax.positions import Span\n",
            "syntax/positions.py": "Span = int\n",
            "model/types.py": "_cache = {}\n",
            "expr/ast.py": "def _first(): ...\n",
            "eval/y.py": "Thing = 1\n",
            "model/x.py": (
                "from __future__ import annotations\n"  # 1
                "from typing import TYPE_CHECKING\n"  # 2
                "from ..errors import Span\n"  # 3: down, fine
                "from .types import Type, __all__\n"  # 4: own package, a dunder: fine
                "from ..expr.ast import _first\n"  # 5: down, but a private name
                "if TYPE_CHECKING:\n"  # 6
                "    from ..eval.y import Thing\n"  # 7: up, even if only for types
                "\n"  # 8
                "def late() -> None:\n"  # 9
                "    import engine.eval.y\n"  # 10: up, absolute, in a function
                "    from ..eval import y\n"  # 11: up, a submodule by name
                "    from . import types\n"  # 12: own package
                "    return types._cache\n"  # 13: a private name of another module
            ),
        },
    )
    assert _found(package) == [
        ("engine/model/x.py", 5, "private", "engine.expr.ast._first"),
        ("engine/model/x.py", 7, "upward", "engine.eval.y"),
        ("engine/model/x.py", 10, "upward", "engine.eval.y"),
        ("engine/model/x.py", 11, "upward", "engine.eval.y"),
        ("engine/model/x.py", 13, "private", "engine.model.types._cache"),
    ]
    assert "model (level 5) is below eval (level 7)" in str(check_layers(package)[1])


def test_siblings_the_facade_private_modules_and_unknown_modules_are_caught(tmp_path: Path) -> None:
    package = _tree(
        tmp_path,
        {
            "__init__.py": "from .api import load\nfrom .cli import main\n",  # the facade: anything
            "api.py": "def load(): ...\n",
            "cli.py": "from . import load\ndef main(): ...\n",  # cli may use the facade
            "errors.py": "from .syntax import positions\n",  # the one allowed sibling pair
            "syntax/positions.py": "from .. import errors\n",  # but not the other way round
            "compiler/a.py": "from ..eval import b\n",
            "eval/b.py": "from engine import load\n",
            "eval/_impl.py": "",
            "eval/c.py": "from . import _impl\n",  # private module, used inside its package: fine
            "tools/d.py": "from ..eval._impl import x\nimport engine.misc\n",
            "misc.py": "",
            "model/dyn.py": "import importlib\nimportlib.import_module('engine.tools.d')\n",
        },
    )
    assert _found(package) == [
        ("engine/compiler/a.py", 1, "sibling", "engine.eval.b"),
        ("engine/eval/b.py", 1, "root", "engine"),
        ("engine/misc.py", 1, "unlayered", ""),
        ("engine/model/dyn.py", 2, "upward", "engine.tools.d"),
        ("engine/syntax/positions.py", 1, "sibling", "engine.errors"),
        ("engine/tools/d.py", 1, "private", "engine.eval._impl"),
        ("engine/tools/d.py", 2, "unlayered", "engine.misc"),
    ]


def test_a_tree_that_keeps_its_layers_reports_nothing(tmp_path: Path) -> None:
    package = _tree(
        tmp_path,
        {
            "errors.py": "from .syntax.positions import Span\n",
            "syntax/positions.py": "Span = int\n",
            "syntax/document.py": "from .positions import Span\nfrom ..errors import Span as S\n",
            "expr/parser.py": "from ..syntax.positions import Span\n",
            "model/values.py": "from ..expr import parser\n",
            "eval/exact.py": "from ..model.values import parser\nfrom . import sample\n",
            "eval/sample.py": "from .exact import __doc__\nimport json\nfrom lark import _private\n",
            "tools/lint.py": "from ..api import x\nfrom ..eval.exact import sample\n",
            "api.py": "x = 1\n",
            "__main__.py": "from engine import api\nimport engine\n",
        },
    )
    assert _found(package) == []
