"""What the Streamlit layer keeps that no widget owns is one dataclass per concern under one private
key, got through one function: the layer spells a handful of private keys, each that of a session
object (or of the lesson and the language switch), and a value said once is cleared as it is read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tinygpt.ui.attention.session import K_ATTENTION_SESSION
from tinygpt.ui.frame.app_session import K_APP_SESSION, AppSession, app_session
from tinygpt.ui.frame.model_session import K_MODEL_SESSION, ModelSession, model_session
from tinygpt.ui.frame.student_state import K_CLASS_SESSION, K_FOLLOW_SESSION
from tinygpt.ui.frame.teacher_state import K_TEACHER_SESSION
from tinygpt.ui.teacher.lesson_builder import K_BUILDER_SESSION, builder_session
from tinygpt.ui.theory.theory_state import K_THEORY_SESSION, theory_session
from tinygpt.ui.train.train_session import K_TRAIN_SESSION, TrainSession

ROOT = Path(__file__).resolve().parent.parent
UI_FILES = sorted([*(ROOT / "tinygpt" / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py")])
PRIVATE = re.compile(r"_[a-z][a-z0-9_]+")
#: The session objects' keys, and the two private keys that are not one: the lesson a link opens
#: (one frozen ``tinygpt.ui.views.lesson.Lesson``, read once) and the language switch's widget.
EXPECTED = {
    K_APP_SESSION,
    K_MODEL_SESSION,
    K_ATTENTION_SESSION,
    K_TRAIN_SESSION,
    K_THEORY_SESSION,
    K_BUILDER_SESSION,
    K_CLASS_SESSION,
    K_FOLLOW_SESSION,
    K_TEACHER_SESSION,
    "_lesson",
    "_lang_radio",
}


def private_keys(path: Path) -> set[str]:
    """The private session keys ``path`` spells: a string like ``"_name"`` bound to a module's name,
    used as a subscript, given as ``key=`` or to ``get``/``pop``/``setdefault``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def add(node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and PRIVATE.fullmatch(node.value):
            found.add(node.value)
        elif isinstance(node, ast.Tuple):
            for element in node.elts:
                add(element)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            add(node.value)
        elif isinstance(node, ast.Subscript):
            add(node.slice)
        elif isinstance(node, ast.keyword) and node.arg == "key":
            add(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and node.args:
                add(node.args[0])
    return found


def test_the_streamlit_layer_spells_only_the_session_objects_private_keys():
    spelled: dict[str, list[str]] = {}
    for path in UI_FILES:
        for key in private_keys(path):
            spelled.setdefault(key, []).append(str(path.relative_to(ROOT)))
    assert set(spelled) == EXPECTED, {k: v for k, v in spelled.items() if k not in EXPECTED}
    assert all(len(files) == 1 for files in spelled.values()), spelled  # each spelled in one module


def test_the_reader_finds_the_keys_it_looks_for(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        'A, B = "_seen", "plain"\nss["_page"] = 1\nss.pop("_mark", None)\nst.radio("x", key="_radio")\n'
        'getattr(o, "_not_a_key")\nname.removesuffix("_figure")\n',
        encoding="utf-8",
    )
    assert private_keys(path) == {"_seen", "_page", "_mark", "_radio"}


def test_a_session_object_is_made_once_under_its_key():
    state: dict[str, object] = {}
    assert app_session(state) is app_session(state) is state[K_APP_SESSION]
    assert model_session(state) is state[K_MODEL_SESSION] and theory_session(state) is state[K_THEORY_SESSION]
    assert builder_session(state) is state[K_BUILDER_SESSION]
    assert model_session({}).token != model_session({}).token  # each session its own token


def test_a_value_said_once_is_cleared_as_it_is_read():
    app = AppSession(entry_ran=True, short_page="attention", lang_refused="fr")
    assert (app.take_entry_ran(), app.take_entry_ran()) == (True, False)
    assert (app.take_short_page(), app.take_short_page()) == ("attention", None)
    assert (app.take_lang_refused(), app.take_lang_refused()) == ("fr", None)
    models = ModelSession(link_messages=["refused"])
    assert (models.take_link_messages(), models.take_link_messages()) == (["refused"], [])
    theory = theory_session({})
    theory.scroll = "theory-sections"
    assert (theory.take_scroll(), theory.take_scroll()) == ("theory-sections", None)
    train = TrainSession(loaded_form={"train_seed": "7"})
    assert (train.take_loaded_form(), train.take_loaded_form()) == ({"train_seed": "7"}, {})
