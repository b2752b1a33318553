"""The package's import structure: no module cycles, and no imports hidden in functions.

A cycle among modules used to be dodged by importing inside a function; that hides the
dependency and breaks when the import order changes. Imports inside functions are kept
only where they defer a heavy dependency (listed below, each with its reason).
"""

from __future__ import annotations

import ast
from pathlib import Path

import contio

PACKAGE_ROOT = Path(contio.__file__).parent

LAZY_IMPORTS = {
    ("contio.cli.report", "contio.report.assemble"): "pandas and matplotlib: every start",
    ("contio.cli.report", "contio.report.compare"): "pandas: every start",
    ("contio.cli.report", "contio.report.experiment"): "pandas: every start",
    ("contio.cli.report", "contio.report.export"): "pandas: every start",
    ("contio.cli.run", "contio.report.assemble"): "pandas and matplotlib: every start",
}
"""(importing module, imported module) → why it is imported inside a function."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, ast.Module]:
    return {
        _module_name(path): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE_ROOT.rglob("*.py"))
    }


MODULES = _modules()


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """Every contio name an import statement reaches: the modules and `from` names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.module is None or node.level:
        names = []  # relative imports: the package uses none
    else:
        names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return [n for n in names if n == "contio" or n.startswith("contio.")]


def _owning_module(name: str) -> str | None:
    """The module `name` is or lives in (`contio.qos.resolve` → `contio.qos`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _dependencies(importer: str, names: list[str]) -> set[str]:
    """Modules importing `names` needs: each name's module, and its parent packages
    (their `__init__` runs first) except the importer's own, which are already running.
    `from contio.qos import device` names `contio.qos` itself, so it depends on it."""
    found = set()
    for name in names:
        module = _owning_module(name)
        if module is None:
            continue
        parts = module.split(".")
        for end in range(1, len(parts)):
            package = ".".join(parts[:end])
            own = importer == package or importer.startswith(package + ".")
            if package in MODULES and not own:
                found.add(package)
        if module != importer:
            found.add(module)
    return found


Imports = list[ast.Import | ast.ImportFrom]


def _imports(tree: ast.Module) -> tuple[Imports, Imports]:
    """(module-level imports, imports inside functions) of a module; module level
    includes class bodies and `if TYPE_CHECKING:` blocks."""
    top: Imports = []
    inner: Imports = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                (inner if in_function else top).append(child)
            function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, in_function or function)

    visit(tree, False)
    return top, inner


def _graph() -> dict[str, set[str]]:
    graph = {}
    for name, tree in MODULES.items():
        top, _ = _imports(tree)
        graph[name] = set().union(*(_dependencies(name, _imported(node)) for node in top))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (or a module importing itself)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for dependency in sorted(graph.get(module, ())):
            if dependency not in order:
                connect(dependency)
                low[module] = min(low[module], low[dependency])
            elif dependency in on_stack:
                low[module] = min(low[module], order[dependency])
        if low[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in graph.get(module, ()):
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            connect(module)
    return groups


def test_the_package_is_found():
    assert {"contio", "contio.cli", "contio.experiment.spec", "contio.run.runner"} <= set(MODULES)


def test_no_import_cycle_among_modules():
    assert _cycles(_graph()) == []


def test_a_cycle_would_be_found():
    graph = {"contio.a": {"contio.b"}, "contio.b": {"contio.c"}, "contio.c": {"contio.a"}}
    assert _cycles({**graph, "contio.d": {"contio.a"}}) == [["contio.a", "contio.b", "contio.c"]]


def test_importing_a_submodule_runs_its_package_first():
    assert _dependencies("contio.run.runner", ["contio.qos.device.resolve"]) == {
        "contio.qos",
        "contio.qos.device",
    }
    assert _dependencies("contio.qos.controls", ["contio.qos.device"]) == {"contio.qos.device"}
    through_package = _dependencies("contio.qos.controls", ["contio.qos", "contio.qos.device"])
    assert through_package == {"contio.qos", "contio.qos.device"}


def test_imports_inside_functions_are_only_the_listed_lazy_ones():
    found = set()
    for name, tree in MODULES.items():
        _, inner = _imports(tree)
        for node in inner:
            for imported in _imported(node):
                module = _owning_module(imported)
                if module is not None and module != "contio":
                    found.add((name, module))
    unexpected = sorted(found - set(LAZY_IMPORTS))
    assert unexpected == [], "import these at module level (or list why they are lazy)"
    assert sorted(set(LAZY_IMPORTS) - found) == [], "no longer lazy: drop from LAZY_IMPORTS"
