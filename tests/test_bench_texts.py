"""The benchmarks' expected page texts are built from the app's own strings (a renamed or re-worded
string breaks them here, not in CI's benchmark runs)."""

from bench.classroom import Texts


def test_the_class_benchmarks_expected_texts_come_from_the_catalogue():
    texts = Texts()
    assert texts.own_banner.startswith("Your model") and texts.link_banner.startswith("The link's model")
