"""The class in a browser: two `streamlit run` servers share one PostgreSQL store; a teacher makes a
locked guess-first lesson with a class in the builder on one server, a student opens its short
link on the other and answers, and the teacher's view shows the answer within a few refreshes.

Screenshots for the reviewer: artifacts/screenshots/class_builder.png (the builder, filled in),
class_teacher_view.png (the class's answers), class_student.png (the student's guess)."""

from __future__ import annotations

import re

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from playwright.sync_api import expect

from bench.cold_start import ARTIFACTS, start_server, stop_server, wait_healthy
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 120_000


@pytest.fixture
def two_servers(postgres_url):
    """Two app servers on one PostgreSQL database: their base URLs."""
    env = {"TINYGPT_DATABASE_URL": postgres_url}
    started = [start_server(log_path=ARTIFACTS / f"class-server-{n}.log", env=env) for n in (1, 2)]
    try:
        for proc, url in started:
            wait_healthy(proc, url)
        yield [url for _, url in started]
    finally:
        for proc, _ in started:
            stop_server(proc)


def test_a_student_on_one_server_answers_and_the_teachers_view_on_the_other_shows_it(browser, two_servers):
    student_server, teacher_server = two_servers
    teacher_ctx = browser.new_context(viewport={"width": 1400, "height": 1700}, locale="en-US")
    student_ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")  # a phone
    teacher, student = teacher_ctx.new_page(), student_ctx.new_page()
    try:
        # the teacher opens the builder from the Attention page's softmax step
        teacher.goto(f"{teacher_server}/teacher?lang=en&from=attention&step=softmax")
        teacher.get_by_role("heading", name=t("builder.title", "en")).wait_for(timeout=TIMEOUT)
        wait_for_app(teacher, TIMEOUT)
        controls = teacher.locator(".st-key-builder_controls_attention")
        controls.click()
        for label in (t("attn.mask", "en"), t("attn.temperature", "en")):
            teacher.get_by_role("option", name=label, exact=True).click()
        teacher.keyboard.press("Escape")
        expect(teacher.locator(".st-key-builder_guess input")).to_be_checked()  # guess first: on for a class
        teacher.screenshot(path=str(SCREENSHOTS / "class_builder.png"), full_page=True)
        teacher.locator(".st-key-builder_make button").click()
        teacher.get_by_role("heading", name=re.compile(r"^Class [A-Z2-9]{6}$")).wait_for(timeout=TIMEOUT)
        wait_for_app(teacher)
        assert re.search(r"[?&]class=[A-Z2-9]{6}", teacher.url) and "key=" not in teacher.url  # it is projected
        short = teacher.locator("[data-testid='stCode'] code").first.inner_text().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?s=[A-Za-z2-9]{7}", short), short
        expect(teacher.get_by_text(t("teacher.none_yet", "en"))).to_be_visible()

        # the student opens the short link on the other server and guesses
        code = short.split("?s=")[1]
        student.goto(f"{student_server}/?s={code}")
        question = student.locator(".st-key-attn_ex_argmax_key_pick")
        question.wait_for(timeout=TIMEOUT)
        wait_for_app(student, TIMEOUT)
        assert "lesson=1" in student.url and "guess=1" in student.url and "class=" in student.url
        expect(student.locator("[data-testid='stSidebar']")).to_contain_text("your guesses go to your teacher")
        question.locator("button").nth(2).click()  # "2 …"
        verdict = student.locator("[data-testid='stAlert']").filter(has_text=re.compile("Right!|Not quite"))
        expect(verdict).to_have_count(1, timeout=TIMEOUT)
        wait_for_app(student)
        assert "me=" not in student.url  # the token is in the browser's cookie, not in a copied address
        student.reload()  # a reload keeps the answer: revealed, counted once
        expect(verdict).to_have_count(1, timeout=TIMEOUT)
        wait_for_app(student)
        expect(
            student.get_by_text(t("ex.score", "en", right=1, asked=1)).or_(
                student.get_by_text(t("ex.score", "en", right=0, asked=1))
            )
        ).to_have_count(1)
        student.screenshot(path=str(SCREENSHOTS / "class_student.png"), full_page=True)

        # the teacher's view, refreshing by itself on the other server, shows the answer
        counts = teacher.get_by_text(re.compile(r"^1 answered · [01] right \((0|100) %\)$"))
        expect(counts).to_be_visible(timeout=30_000)
        expect(teacher.get_by_text(re.compile(r"^1 student, 1 answer; updated"))).to_be_visible()
        expect(teacher.locator("[data-testid='stVegaLiteChart']")).to_have_count(1)
        teacher.screenshot(path=str(SCREENSHOTS / "class_teacher_view.png"), full_page=True)
        teacher.locator("[data-testid='stVegaLiteChart']").scroll_into_view_if_needed()
        teacher.screenshot(path=str(SCREENSHOTS / "class_teacher_answers.png"))
        assert_no_exception(teacher)
        assert_no_exception(student)
    finally:
        teacher_ctx.close()
        student_ctx.close()
