import pytest

from citeloop.runtime.numbers import NumberMention, extract_numbers, numbers_match


def values(text):
    return [(m.value, m.unit) for m in extract_numbers(text)]


@pytest.mark.parametrize("text, expected", [
    ("1,234", "1234"),
    ("1 234 567", "1234567"),
    ("1'234", "1234"),
    ("3.50", "3.5"),
    ("１２３", "123"),
    ("三千", "3000"),
    ("三千五百", "3500"),
    ("一百二十", "120"),
    ("两万", "20000"),
    ("10万", "100000"),
    ("1.2亿", "120000000"),
    ("1.5 million", "1500000"),
    ("3 billion", "3000000000"),
    ("2 thousand", "2000"),
    ("1986", "1986"),
])
def test_canonical_values(text, expected):
    assert values(text) == [(expected, None)]


@pytest.mark.parametrize("text", ["3%", "3 percent", "3 per cent", "百分之三", "３％"])
def test_percent_forms(text):
    assert values(text) == [("3", "%")]


def test_raw_form_is_kept_for_display():
    [mention] = extract_numbers("revenue of 1.5 million dollars")
    assert mention == NumberMention(raw="1.5 million dollars", value="1500000", unit="usd")


def test_lone_cjk_numeral_inside_a_word_is_not_a_number():
    assert values("统一的一些方法十分重要") == []


def test_bare_number_words_are_not_numbers_but_scaled_ones_are():
    assert values("one of the three films") == []
    assert values("three million viewers") == [("3000000", None)]


@pytest.mark.parametrize("claim, evidence", [
    ("It sold 1,234 copies", "It sold 1234 copies"),
    ("It sold 123 copies", "销量为１２３份"),
    ("The staff numbered 3000", "员工三千人"),
    ("About 100000 visits", "约10万次访问"),
    ("It earned 1.5 million", "It earned 1,500,000"),
    ("Growth was 3%", "增长百分之三"),
    ("Growth was 3 percent", "growth of 3 per cent"),
])
def test_numbers_match_across_notations(claim, evidence):
    assert numbers_match(claim, evidence) == []


def test_numbers_match_reports_missing_raw_forms():
    assert numbers_match("Released in 1986 with 3,001 prints", "Released in 1986 with 3,000 prints") == ["3,001"]


def test_units_must_agree_when_both_sides_have_one():
    assert numbers_match("It is 5 km long", "It is 5 miles long") == ["5 km"]
    assert numbers_match("It is 5 km long", "It is 5 long") == []  # unknown unit is no mismatch
