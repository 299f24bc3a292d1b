"""A class period in a browser: the teacher leads, a projector shows the class, three students (one
on a 390×844 phone) follow and vote twice; the projector shows the answers only once revealed,
with how round 2 compares with round 1, and never a student's token; the phone's vote passes axe.

Screenshots for the reviewer (artifacts/screenshots/): period_teacher_lead.png (leading the
class), period_teacher.png (the question's private spread in round 2), period_projector.png (the
projector after the reveal, 1400×900, both rounds without scrolling), period_projector_phone.png (the same at 390×844),
period_student_phone.png (a phone student after the reveal), period_student_following.png (a
student's page while the teacher leads)."""

from __future__ import annotations

import re

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from playwright.sync_api import expect
from test_browser_a11y import blocking_findings, summary

from tinygpt.classroom.class_links import LessonPlan, ascii_query, lesson_params, query_with_class
from tinygpt.classroom.period import read_state
from tinygpt.classroom.store import Store
from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 120_000
SEEN = 30_000  # a student's page reads the class every 2 s; a loaded machine takes longer to redraw


def en(key: str, **fields: object) -> str:
    return t(key, "en", **fields)


@pytest.fixture
def klass():
    """A class running a lesson of Predict, Attention and Theory on the context example: (code, key, short link)."""
    store = Store.from_environment()  # the servers' store (tests/conftest.py sets TINYGPT_DATA_DIR)
    plan = LessonPlan(pages=("predict", "attention", "theory"), model="context", lang="en")
    query = ascii_query(lesson_params(plan))
    code, key = store.create_class(query)
    yield code, key, store.shorten(query_with_class(query, code))
    store.dispose()


def vote(student, option: int) -> None:
    """Pick the ``option``-th answer of the class's question, then see it was sent."""
    question = student.locator(".st-key-period_question")
    question.locator("button").nth(option).click()
    expect(question.get_by_text(en("period.sent"))).to_be_visible(timeout=SEEN)


def test_a_teacher_leads_three_students_through_a_vote_in_two_rounds(browser, app_server, klass):
    code, key, link = klass
    contexts = [
        browser.new_context(viewport=size, locale="en-US")
        for size in (
            {"width": 1400, "height": 1000},  # the teacher
            {"width": 1400, "height": 1000},  # the projector
            {"width": 1280, "height": 900},
            {"width": 1280, "height": 900},
            {"width": 390, "height": 844},  # a phone
        )
    ]
    teacher, projector, *students = [c.new_page() for c in contexts]
    phone = students[-1]
    try:
        teacher.goto(f"{app_server}/teacher?class={code}&key={key}&lang=en")
        teacher.get_by_role("heading", name=en("period.lead_header")).wait_for(timeout=TIMEOUT)
        wait_for_app(teacher, TIMEOUT)
        teacher.locator(".st-key-lead_follow button").click()
        expect(teacher.get_by_text(re.compile("^Students follow you"))).to_be_visible(timeout=SEEN)
        wait_for_app(teacher)
        teacher.reload()  # a new tab id: it leads by itself once the old tab's heartbeat is past LEAD_EXPIRES_S
        expect(teacher.get_by_text(re.compile("^" + re.escape(en("period.you_lead"))))).to_be_visible(timeout=SEEN)
        expect(teacher.get_by_text(re.compile("^Students follow you"))).to_be_visible()
        wait_for_app(teacher)
        teacher.locator(".st-key-lead_box").scroll_into_view_if_needed()
        teacher.screenshot(path=str(SCREENSHOTS / "period_teacher_lead.png"))

        projector.goto(f"{app_server}/projector?class={code}&lang=en")
        expect(projector.locator(".st-key-projector_code")).to_have_text(code, timeout=TIMEOUT)
        expect(projector.get_by_text(en("projector.no_question"))).to_be_visible(timeout=SEEN)
        assert "key=" not in projector.url

        # the students join through the class's short link and land where the teacher leads: Attention, locked
        for student in students:
            student.goto(f"{app_server}/?s={link}")
        for student in students:
            expect(student.get_by_text(re.compile("^Your teacher is leading"))).to_be_visible(timeout=TIMEOUT)
            wait_for_app(student, TIMEOUT)
            assert re.search(r"/attention\?", student.url), student.url
            expect(student.locator(".st-key-attn_mask")).to_have_count(0)  # a control the teacher has not opened
        students[0].screenshot(path=str(SCREENSHOTS / "period_student_following.png"))

        # the teacher turns the mask off: every student's page follows
        teacher.locator(".st-key-lead_mask").get_by_text(en("attn.mask"), exact=True).click()
        switched = en("attn.lesson_switch", name=en("attn.mask"), value=en("attn.lesson_off"))
        for student in students:
            expect(student.get_by_text(switched, exact=False).first).to_be_visible(timeout=SEEN)

        # the teacher asks; the students answer without seeing anyone else's answer
        wait_for_app(teacher)
        teacher.locator(".st-key-lead_ask button").click()
        for student in students:
            expect(student.locator(".st-key-period_question")).to_be_visible(timeout=SEEN)
        store = Store.from_environment()
        try:
            state = read_state(store, code)
        finally:
            store.dispose()
        ids = [c[0] for c in state.question["choices"]]
        right = ids.index(sorted(state.question["answers"])[0])
        wrong = next(n for n, i in enumerate(ids) if i not in state.question["answers"])
        for n, student in enumerate(students):  # one right, two wrong: 33 %, where the class discusses
            vote(student, right if n == 0 else wrong)
        for student in students:  # "my answers" at once beside the vote (the fragment does not redraw the sidebar)
            expect(student.locator(".st-key-mine_vote")).to_be_visible(timeout=SEEN)
        students[1].locator(".st-key-mine_vote button").first.click()
        blind = en("ex.score", right=0, asked=0) + " " + en("mine.hidden_note", n=1)  # no verdict before the reveal
        expect(students[1].get_by_text(blind).first).to_be_visible(timeout=SEEN)
        expect(students[1].get_by_text(en("ex.score", right=0, asked=1))).to_have_count(0)
        students[1].screenshot(path=str(SCREENSHOTS / "period_student_my_answers.png"))
        students[1].keyboard.press("Escape")
        round1 = re.compile(r"^Round 1: 3 answered · 1 right \(33 %\).*Only you see")  # the lead's line
        expect(teacher.get_by_text(round1)).to_be_visible(timeout=SEEN)
        expect(teacher.get_by_text(re.compile("discuss with their neighbour"))).to_be_visible()
        expect(projector.locator(".st-key-projector_count")).to_contain_text("3 students have answered", timeout=SEEN)
        expect(projector.get_by_text(en("projector.hidden"))).to_be_visible()
        expect(projector.locator("[data-testid='stVegaLiteChart']")).to_have_count(0)  # no spread before the reveal

        # round 2, then the reveal: the projector compares the rounds and ends with the model's numbers
        teacher.locator(".st-key-lead_round2 button").click()
        for student in students:
            expect(student.get_by_text(en("period.round2_student"))).to_be_visible(timeout=SEEN)
        for n, student in enumerate(students):  # two change to the right answer, none away from it
            vote(student, right if n < 2 else wrong)
        live = re.compile(r"^Round 2: 3 answered · 2 right .*Only you see")  # the lead's line, not the summary's
        expect(teacher.get_by_text(live)).to_be_visible(timeout=SEEN)
        wait_for_app(teacher)
        teacher.get_by_role("heading", name=en("period.question_section")).scroll_into_view_if_needed()
        teacher.screenshot(path=str(SCREENSHOTS / "period_teacher.png"))
        teacher.locator(".st-key-lead_reveal button").click()
        expect(projector.locator(".st-key-projector_reveal")).to_contain_text("The answer is", timeout=SEEN)
        compare = en("period.compare", first="33 %", n1=3, second="67 %", n2=3, to_right=1, to_wrong=0)
        expect(projector.locator(".st-key-projector_reveal")).to_contain_text(compare)
        expect(projector.locator("[data-testid='stVegaLiteChart']")).to_have_count(2, timeout=SEEN)  # both rounds
        for student in students:
            expect(
                student.locator(".st-key-period_question [data-testid='stAlert']").filter(
                    has_text=re.compile("Right!|Not quite: the answer is")
                )
            ).to_have_count(1, timeout=SEEN)
        wait_for_app(projector)
        projector.set_viewport_size({"width": 1400, "height": 900})
        projector.wait_for_timeout(1000)
        projector.screenshot(path=str(SCREENSHOTS / "period_projector.png"))  # 1400×900, no scrolling
        spreads = projector.locator("[data-testid='stVegaLiteChart']")
        for n in range(2):  # both rounds' charts within the projector's screen
            box = spreads.nth(n).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 900 + 1, box
        # the whole revealed page on the screen: the projector's page does not scroll
        m = "document.querySelector('[data-testid=\"stMain\"]')"
        try:
            projector.wait_for_function(f"() => {m}.scrollHeight <= {m}.clientHeight + 1", timeout=SEEN, polling=100)
        except Exception:
            heights = projector.evaluate(f"() => [{m}.scrollHeight, {m}.clientHeight]")
            raise AssertionError(f"the projector's page scrolls at 1400×900: (content, screen) = {heights} px")
        projector.set_viewport_size({"width": 390, "height": 844})
        projector.wait_for_timeout(1000)
        projector.screenshot(path=str(SCREENSHOTS / "period_projector_phone.png"), full_page=True)
        phone.locator(".st-key-period_question").scroll_into_view_if_needed()
        phone.screenshot(path=str(SCREENSHOTS / "period_student_phone.png"))

        # the projector never shows a student's token
        tokens = [c["value"] for ctx in contexts[2:] for c in ctx.cookies() if c["name"] == "tinygpt_me"]
        assert len(tokens) == 3
        shown = projector.content()
        assert not any(token in shown for token in tokens)
        for pg in (teacher, projector, *students):
            assert_no_exception(pg)
        findings = blocking_findings(phone)  # the vote on a phone passes the app's accessibility check
        assert findings == [], summary(findings)
    finally:
        for context in contexts:
            context.close()
