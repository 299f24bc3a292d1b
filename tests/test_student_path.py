"""The student's path on the Attention page: the bugs a student alone met, each with a test that
failed on the code before the fix.

1. A guess is judged on the question that was asked: a cell picker still holding a row of a
   longer or shorter text must not change the question between asking and answering.
2. A text kept across a model change is kept only if the new model can read it.
(The context-example button inside the switches' fragment is a browser test:
tests/test_browser_student_path.py.)
"""

from __future__ import annotations

from helpers import open_page, small_model
from streamlit.testing.v1 import AppTest

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.views.attention_table import K_GUESS

CONTEXT = EXAMPLES["context"]


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_first_guess_after_a_model_change_is_judged_on_the_question_asked():
    # textbook model, step 1 shown (its cell picker holds row 3, the last of 你好世界)
    at = open_page("attention", "en", model="textbook", step="projection")
    _ok(at)
    # the context example, exercise on, the softmax step
    at.session_state["model_choice"] = "context"
    _ok(at.run())
    at.toggle(key=K_GUESS).set_value(True)
    _ok(at.run())
    at.session_state["attn_step"] = "softmax"
    _ok(at.run())
    pick = at.button_group(key="attn_ex_argmax_key_pick")
    asked = pick.label
    T = len(CONTEXT.display)
    # the question is about a row of the text shown, and stays the question that is judged
    assert any(asked == t("ex.argmax_key.prompt", "en", i=i, token=CONTEXT.display[i]) for i in range(T)), asked
    pick.set_value("0")
    _ok(at.run())
    after = at.button_group(key="attn_ex_argmax_key_pick")
    assert after.label == asked and after.disabled  # answered: locked, and judged
    right, wrong = t("ex.right", "en", reason="").strip(), t("ex.wrong", "en", answer="", reason="").split()[0]
    verdicts = [s.value for s in at.success] + [e.value for e in at.error]
    assert any(v.startswith(right[:8]) or v.startswith(wrong) for v in verdicts), verdicts


def test_a_kept_text_the_new_model_cannot_read_gives_way_to_its_own_text():
    poem = small_model("床前明月光疑是地上霜", epochs=30)
    other = small_model("举头望明月低头思故乡", epochs=30)
    at = open_page("attention", "en", own_model=poem, model="own")
    _ok(at)
    assert at.text_input(key="attn_text").value == "床前明月光疑是地上霜"
    # the student trains another model on the Train page, then comes back
    at.switch_page("pages/train.py")
    _ok(at.run())
    at.session_state[K_OWN] = other
    at.switch_page("pages/attention.py")
    _ok(at.run())
    assert at.text_input(key="attn_text").value == "举头望明月低头思故乡"
    assert not at.error, [e.value for e in at.error]


def test_a_kept_text_the_new_model_can_read_is_kept():
    at = open_page("attention", "en", model="context", text="我爱你，你爱我")
    _ok(at)
    assert at.text_input(key="attn_text").value == "我爱你，你爱我"
    at.session_state["model_choice"] = "textbook"
    _ok(at.run())
    assert at.text_input(key="attn_text").value == "你好世界"  # the textbook model cannot read 我爱你
    at.session_state["model_choice"] = "context"
    _ok(at.run())
    at.text_input(key="attn_text").set_value("你爱我")
    _ok(at.run())
    at.session_state["model_choice"] = "context"
    _ok(at.run())
    assert at.text_input(key="attn_text").value == "你爱我"
