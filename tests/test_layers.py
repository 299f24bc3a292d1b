"""The app's import graph, read from the source (``ast``): arrows run one way and none is hidden.

- No import cycle among the modules of ``tinygpt/`` (its UI included) and ``pages/``, counting
  the imports inside functions too: a cycle closed by a function-level import is still a cycle,
  only one that a reader cannot see at the top of the file.
- A project import inside a function is allowed only where it keeps a heavy import (torch,
  SQLAlchemy) off the start, and says so on its line: ``# heavy: <why>``.
- The Streamlit layer's leaves (the page list, the app's address, the session's values that no
  widget owns, the language) import no UI module but another leaf, and only the pages import
  ``navigation``, its top.
- No module of ``tinygpt/ui/`` has the name of a core module (``tinygpt/<name>.py``): a name says
  which of the two a reader opens; the pages' entries and paths are named in ``page_list`` only.

Imports under ``if TYPE_CHECKING:`` never run and are left out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a function-level project import says on its line.
REASON = "# heavy:"


@dataclass(frozen=True)
class Import:
    """One project import: ``source`` imports ``target`` at ``path``:``line``."""

    source: str
    target: str
    path: str
    line: int
    nested: bool  # inside a function, a class or a block, not at the module's top
    text: str  # the statement's lines as written (its comment included)


def sources(root: Path) -> dict[str, Path]:
    """{module name: file} of ``tinygpt/**/*.py`` and ``pages/*.py`` under ``root``."""
    files = sorted(root.glob("tinygpt/**/*.py")) + sorted(root.glob("pages/*.py"))
    modules = {}
    for path in files:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (imports for type hints only)."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return ids


def project_imports(root: Path) -> list[Import]:
    """Every import of a project module by a project module, top-level and nested."""
    modules = sources(root)
    found = []
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        skipped = _type_checking_nodes(tree)
        top = {id(stmt) for stmt in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:  # a relative import: from the module's package upwards
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    package = package[: len(package) - (node.level - 1)]
                    base = ".".join(package + ([base] if base else []))
                candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
            statement = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            for target in dict.fromkeys(c for c in candidates if c in modules and c != name):
                rel = str(path.relative_to(root))
                found.append(Import(name, target, rel, node.lineno, id(node) not in top, statement))
    return found


def cycles(imports: list[Import]) -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module), each sorted."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        graph.setdefault(imp.source, set()).add(imp.target)
        graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph has ~150 modules: recursion is fine)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def hidden_imports(imports: list[Import]) -> list[str]:
    """The function-level project imports that do not give their reason (``# heavy: …``) on their line."""
    return sorted({f"{i.path}:{i.line}: {i.text.strip()}" for i in imports if i.nested and REASON not in i.text})


def shared_names(root: Path) -> list[str]:
    """Module names both in the core (``tinygpt/`` and its parts, any depth) and in ``tinygpt/ui/`` (any depth)."""
    ui_dir, strings = root / "tinygpt" / "ui", root / "tinygpt" / "strings"  # strings: catalogues named by page
    core = {p.stem for p in (root / "tinygpt").rglob("*.py") if ui_dir not in p.parents and strings not in p.parents}
    core -= {"__init__", "__main__"}
    ui = {p.stem for p in (root / "tinygpt" / "ui").rglob("*.py")} - {"__init__"}
    return sorted(core & ui)


def test_the_import_graph_has_no_cycle_counting_the_imports_inside_functions():
    found = cycles(project_imports(ROOT))
    assert found == [], "import cycles (function-level imports included):\n" + "\n".join(map(str, found))


def test_a_function_level_project_import_says_why_on_its_line():
    found = hidden_imports(project_imports(ROOT))
    assert found == [], f"function-level project imports without '{REASON} …' on their line:\n" + "\n".join(found)


#: The core's layers, lowest first: a module imports modules of its own layer and of the layers listed
#: before it, never after. ``tinygpt/*.py`` (the model and its inputs: config, vocab, model, attention,
#: generate, params, numbers, …) and the string catalogues are the bottom; the Streamlit layer
#: (``tinygpt.ui``), the pages and the command line (``tinygpt.__main__``) sit above every layer.
CORE_LAYERS = ("model", "explanations", "training", "classroom", "app")
TOP = ("tinygpt.ui", "tinygpt.__main__", "pages")


def core_layer(module: str) -> str:
    """The layer of a project module (:data:`CORE_LAYERS`)."""
    if any(module == top or module.startswith(top + ".") for top in TOP):
        return "app"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in CORE_LAYERS else "model"


def upward_imports(imports: list[Import]) -> list[str]:
    """The imports that run from a core layer up to a higher one."""
    rank = {m: CORE_LAYERS.index(core_layer(m)) for i in imports for m in (i.source, i.target)}
    return sorted({f"{i.path}:{i.line}: {i.source} -> {i.target}" for i in imports if rank[i.target] > rank[i.source]})


def test_the_core_imports_only_its_own_layer_or_lower_ones():
    """The model < explanations < training < classroom: explanations never read the class store
    (the answers they grade are ``tinygpt.explanations.answers``), training shares its models
    through a protocol the store fills (``ModelStore``), the links of a trained model sit in
    ``training``; counting the imports inside functions too."""
    assert upward_imports(project_imports(ROOT)) == []


#: The bottom of the Streamlit layer: modules that import no module of ``tinygpt.ui`` but one of these.
UI_LEAVES = (
    "tinygpt.ui.frame.page_list",
    "tinygpt.ui.frame.app_url",
    "tinygpt.ui.frame.app_session",
    "tinygpt.ui.frame.model_session",
    "tinygpt.ui.frame.student_state",
    "tinygpt.ui.frame.teacher_state",
    "tinygpt.ui.frame.language",
)


def test_the_leaves_of_the_streamlit_layer_import_nothing_above_them_and_only_pages_import_navigation():
    imports = project_imports(ROOT)
    upward = [
        f"{i.source} -> {i.target}"
        for i in imports
        if i.source in UI_LEAVES and i.target.startswith("tinygpt.ui.") and i.target not in UI_LEAVES
    ]
    assert upward == []
    importers = {i.source for i in imports if i.target == "tinygpt.ui.navigation"}
    assert importers and all(m.startswith("pages.") for m in importers), sorted(importers)


#: The wings of ``tinygpt/ui/``, lowest first: a module imports modules of its own wing and of the wings
#: listed before it, never after. The root of ``ui/`` (``navigation``, ``follow``) is above every wing.
UI_WINGS = (
    "frame",  # the app's frame: session values, language, URL, page list, style, tables, the store
    "views",  # the page tables and the lesson: the one description of every page's view
    "shared",  # the models behind the pages and the pieces every page draws
    "train",  # the Train page and its jobs
    "choice",  # which model Predict and Attention show, and the class's model
    "classwork",  # what every page uses of the class: the student, answers, exercises, the concept check
    "attention",
    "predict",
    "theory",
    "projector",  # the projector's page and the aggregates it shares with the teacher's
    "teacher",  # the teacher's page: the builder, the lead, the report
)


def wing(module: str) -> str | None:
    """The wing of a ``tinygpt.ui`` module (``None`` for the root of ``ui/`` and outside it)."""
    parts = module.split(".")
    if parts[:2] != ["tinygpt", "ui"] or len(parts) < 4:
        return None
    return parts[2]


def test_ui_modules_live_in_wings_and_import_only_their_own_wing_or_lower_ones():
    modules = sources(ROOT)
    root_modules = sorted(m for m in modules if m.startswith("tinygpt.ui.") and m.count(".") == 2)
    assert set(root_modules) <= {"tinygpt.ui.navigation", "tinygpt.ui.follow"} | {f"tinygpt.ui.{w}" for w in UI_WINGS}
    assert all(wing(m) in UI_WINGS for m in modules if m.startswith("tinygpt.ui.") and m.count(".") >= 3)
    upward = [
        f"{i.source} -> {i.target}"
        for i in project_imports(ROOT)
        if wing(i.source) and wing(i.target) and UI_WINGS.index(wing(i.target)) > UI_WINGS.index(wing(i.source))
    ]
    assert upward == []


def test_no_ui_module_has_the_name_of_a_core_module():
    assert shared_names(ROOT) == []


def top_level_names(path: Path) -> set[str]:
    """The names a module binds by assignment at its top."""
    names: set[str] = set()
    for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        )
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_the_pages_are_named_in_one_module_and_a_page_is_never_a_bare_path():
    """``PAGES``, ``TEACHER_PAGE`` and ``PROJECTOR_PAGE`` (entries: file, title, icon, path) and the
    two pages' URL paths (``TEACHER_PATH``, ``PROJECTOR_PATH``) are bound in ``page_list`` only, so
    one name never stands for an entry in one module and for a path in another."""
    names = {"PAGES", "TEACHER_PAGE", "PROJECTOR_PAGE", "TEACHER_PATH", "PROJECTOR_PATH"}
    bound = sorted((module, name) for module, path in sources(ROOT).items() for name in top_level_names(path) & names)
    assert {module for module, _ in bound} == {"tinygpt.ui.frame.page_list"}, bound
    assert {name for _, name in bound} == names


def test_the_checks_find_what_they_look_for(tmp_path):
    """The readers above on a small made-up tree: a cycle closed inside a function, an import
    that says why, one that does not, a name in both places, a relative import."""
    (tmp_path / "tinygpt" / "ui").mkdir(parents=True)
    (tmp_path / "pages").mkdir()
    files = {
        "tinygpt/__init__.py": "",
        "tinygpt/jobs.py": "from tinygpt.ui import jobs\n",
        "tinygpt/model.py": "def f():\n    import tinygpt.jobs  # heavy: torch\n",
        "tinygpt/ui/__init__.py": "",
        "tinygpt/ui/jobs.py": "def f():\n    from . import page\n",
        "tinygpt/ui/page.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tinygpt.model import GPT\n"
            "from tinygpt import jobs\n"
        ),
        "pages/a.py": "from tinygpt.ui.page import x\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    imports = project_imports(tmp_path)
    assert {(i.source, i.target) for i in imports} == {
        ("tinygpt.jobs", "tinygpt.ui.jobs"),
        ("tinygpt.jobs", "tinygpt.ui"),
        ("tinygpt.model", "tinygpt.jobs"),
        ("tinygpt.ui.jobs", "tinygpt.ui.page"),
        ("tinygpt.ui.jobs", "tinygpt.ui"),
        ("tinygpt.ui.page", "tinygpt.jobs"),
        ("tinygpt.ui.page", "tinygpt"),
        ("pages.a", "tinygpt.ui.page"),
    }
    assert cycles(imports) == [["tinygpt.jobs", "tinygpt.ui.jobs", "tinygpt.ui.page"]]
    assert hidden_imports(imports) == ["tinygpt/ui/jobs.py:2: from . import page"]
    assert shared_names(tmp_path) == ["jobs"]
    assert core_layer("tinygpt.jobs") == "model" and core_layer("tinygpt.ui.page") == "app"
    assert upward_imports(imports) == [
        "tinygpt/jobs.py:1: tinygpt.jobs -> tinygpt.ui",
        "tinygpt/jobs.py:1: tinygpt.jobs -> tinygpt.ui.jobs",
    ]


def key_rebindings(root: Path) -> list[str]:
    """Assignments of a key name (``K_*``, ``T_*``, ``P_*``) to anything but a string written out: a key
    name stands for one key, spelled once, never for another module's name under a second one."""
    found = []
    for module, path in sources(root).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for name, value in zip(names, values if len(values) == len(names) else [None] * len(names)):
                    if not (isinstance(name, ast.Name) and name.id[:2] in ("K_", "T_", "P_")):
                        continue
                    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                        found.append(f"{module}:{node.lineno}: {name.id}")
    return sorted(found)


def test_no_module_rebinds_a_key_name():
    assert key_rebindings(ROOT) == []


def test_a_key_name_bound_to_another_name_is_found(tmp_path):
    (tmp_path / "tinygpt").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "tinygpt" / "a.py").write_text('K_A, T_B = "a", "b"\nK_C = K_A\n\ndef f():\n    T_D = T_B\n')
    assert key_rebindings(tmp_path) == ["tinygpt.a:2: K_C", "tinygpt.a:5: T_D"]
