"""`--set KEY=VALUE` plumbing shared by research, eval, train and loop configs
(`citeloop.runtime.registry.parse_settings` and `set_dotted`)."""

import pytest

from citeloop.runtime.registry import parse_settings, set_dotted


def test_values_are_read_as_yaml_and_keys_stripped():
    assert parse_settings([" lora.r =8", "name=tiny", "rates=[1, 2]", "empty="]) == {
        "lora.r": 8, "name": "tiny", "rates": [1, 2], "empty": None}


def test_a_nested_key_makes_missing_and_empty_sections_and_keeps_siblings():
    data = {"lora": None, "budget": {"max_reads": 5}}
    set_dotted(data, "lora.r", 8)
    set_dotted(data, "budget.max_searches", 2)
    set_dotted(data, "a.b.c", True)
    assert data == {"lora": {"r": 8}, "budget": {"max_reads": 5, "max_searches": 2}, "a": {"b": {"c": True}}}


@pytest.mark.parametrize(("key", "words"), [("budget.max_reads", "'budget' is 3, not a section"),
                                            ("budget..x", "empty part"), (".x", "empty part")])
def test_a_key_that_cannot_be_set_is_the_callers_error(key, words):
    class Wrong(ValueError):
        pass

    with pytest.raises(Wrong, match=words):
        set_dotted({"budget": 3}, key, 1, Wrong)


def test_a_bad_item_names_the_flag():
    with pytest.raises(ValueError, match="--train-set expects key=value, got 'x'"):
        parse_settings(["x"], "--train-set")
