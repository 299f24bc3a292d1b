"""Every page's state is in its table (``tinygpt.ui.frame.controls``): the lesson's lockable controls are
the tables' labelled rows, each default is spelled once, every URL parameter a page reads is a row
of its table, and the files DEVELOPERS.md names for a new switch are the files that hold it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tinygpt.config import DEFAULT_GPT
from tinygpt.i18n import CATALOGUE
from tinygpt.ui.attention import state
from tinygpt.ui.frame.controls import MODEL, UNSET, lockable
from tinygpt.ui.theory.theory_state import URL_PARAMS as THEORY_PARAMS
from tinygpt.ui.train.train_url import TRAIN_URL
from tinygpt.ui.views import attention_table, lesson
from tinygpt.ui.views.attention_table import ATTENTION, K_TAU
from tinygpt.ui.views.predict_table import P_TAU, PREDICT
from tinygpt.ui.views.predict_table import url_params as predict_params
from tinygpt.ui.views.theory_table import TH_TAU, THEORY
from tinygpt.ui.views.train_table import TRAIN

ROOT = Path(__file__).resolve().parent.parent
UI_FILES = sorted([*(ROOT / "tinygpt" / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py")])
TABLE_FILES = {"controls.py", "predict_table.py", "attention_table.py", "train_table.py", "theory_table.py"}


def test_every_lockable_control_is_a_labelled_row_of_a_page_table_and_every_label_is_a_string():
    tables = (MODEL, PREDICT, ATTENTION, TRAIN, THEORY)
    assert lesson.LESSON_CONTROLS == lockable(*tables)
    keys = [k for t in tables for k in t]
    assert len(keys) == len(set(keys))  # no key in two tables
    assert all(label in CATALOGUE for label, _ in lesson.LESSON_CONTROLS.values())


def test_the_page_tables_spell_every_session_key_they_own_once_across_the_streamlit_layer():
    """A key of a page's table appears as a string literal only in its table's module."""
    owned = {k for t in (MODEL, PREDICT, ATTENTION, TRAIN, THEORY) for k in t}
    spelled: dict[str, list[str]] = {}
    for path in UI_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in owned:
                spelled.setdefault(node.value, []).append(str(path.relative_to(ROOT)))
    elsewhere = {k: files for k, files in spelled.items() if any(Path(f).name not in TABLE_FILES for f in files)}
    assert not elsewhere  # the others import the table's name (e.g. P_TAU, state.K_TAU)
    assert all(len(set(files)) == 1 for files in spelled.values()), spelled


def test_each_temperature_default_is_spelled_once_in_its_table():
    assert PREDICT[P_TAU].default == ATTENTION[K_TAU].default == THEORY[TH_TAU].default == 1.0
    table_text = (ROOT / "tinygpt" / "ui" / "attention" / "state.py").read_text(encoding="utf-8")
    assert "1.0" not in re.sub(r"#.*", "", table_text.split("def reset_switches")[1].split("def ")[0])


def test_every_url_parameter_a_page_reads_is_a_row_of_its_table():
    """A page reads the URL only through ``tinygpt.ui.frame.url.load`` of its rows: no page or page
    module reads ``st.query_params`` by hand (the app-wide parameters are read in their own
    modules: the language, a lesson, a class, a short link, the teacher's key)."""
    pages = {
        "predict": {p.name for p in predict_params()},
        "attention": {p.name for p in state.url_params(DEFAULT_GPT)},
        "theory": {p.name for p in THEORY_PARAMS},
        "train": {p.name for p in TRAIN_URL},
    }
    assert pages["predict"] == {"prefix", "n", "decode", "tau", "k", "p", "seed", "guess"}
    assert {"section", "tau", "mask", "concept", "step"} <= pages["theory"]
    assert {"text", "layer", "head", "step", "tau", "edits"} <= pages["attention"]
    by_hand = re.compile(r"query_params(\.get\(|\[)")
    page_modules = [ROOT / "pages" / f"{name}.py" for name in pages] + [
        ROOT / "tinygpt" / "ui" / f
        for f in ("predict/predict_view.py", "predict/predict_generation.py", "theory/theory_view.py")
    ]
    page_modules += sorted((ROOT / "tinygpt" / "ui" / "attention").glob("*.py"))
    read = {str(p.relative_to(ROOT)) for p in page_modules if by_hand.search(p.read_text(encoding="utf-8"))}
    assert not read


def test_every_attention_switch_with_a_default_is_in_the_url_or_named_as_kept_out():
    """A control with a plain default on the Attention page is in its URL or is one the view does
    not carry (the edits travel as ``edits=``; the divisor inside ``scale=``; the expanders)."""
    rows = {p.name for p in state.url_params(DEFAULT_GPT)}
    with_row = {k for k, c in ATTENTION.items() if c.url_row is not None}
    kept_out = {k for k, c in ATTENTION.items() if c.default is not UNSET and c.url_row is None}
    assert len(with_row) + 3 == len(rows)  # + step, edits, part (state.url_params)
    assert kept_out == {
        attention_table.K_STEP,
        attention_table.K_UNIFORM_SCOPE,
        attention_table.K_DIVISOR,
        attention_table.K_EDITING,
        attention_table.K_EDITS,
        attention_table.K_ALL_COLUMNS,
    }


def test_developers_md_names_the_files_a_new_switch_touches():
    text = (ROOT / "DEVELOPERS.md").read_text(encoding="utf-8")
    switch = text.split("- **A switch of the Attention page**")[1].split("\n- **")[0]
    named = set(re.findall(r"`((?:tinygpt|tests|pages)/[\w/.]+\.py)`", switch))
    assert {
        "tinygpt/ui/views/attention_table.py",
        "tinygpt/ui/attention/switches.py",
        "tinygpt/strings/zh/attention.py",
        "tinygpt/strings/en/attention.py",
        "tests/test_attention_page.py",
    } <= named
    assert all((ROOT / f).exists() for f in named)


def test_every_file_the_how_to_add_lists_name_exists():
    text = (ROOT / "DEVELOPERS.md").read_text(encoding="utf-8")
    how_to = text.split("## How to add")[1].split("\n## ")[0]
    named = set(re.findall(r"`((?:tinygpt|tests|pages)/[\w/.]+\.(?:py|md))`", how_to))
    assert len(named) > 20
    missing = {f for f in named if "<" not in f and not (ROOT / f).exists()}
    assert not missing


def test_a_default_list_or_dict_is_a_fresh_one_for_each_session_and_a_by_page_default_must_be_given():
    from tinygpt.ui.frame.controls import default_of, defaults_of
    from tinygpt.ui.views.attention_table import K_EDITS, K_HEAD, K_HEADS_OFF

    first, second = default_of(ATTENTION, K_HEADS_OFF), default_of(ATTENTION, K_HEADS_OFF)
    assert first == [] and first is not second and default_of(ATTENTION, K_EDITS) == {}
    assert defaults_of(ATTENTION)[K_HEADS_OFF] is not defaults_of(ATTENTION)[K_HEADS_OFF]
    assert K_HEAD not in defaults_of(ATTENTION)  # computed from the model by the page (state.opening_head)
