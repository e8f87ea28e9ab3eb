"""The shipped research configs load, and the default one matches the code's defaults."""

from pathlib import Path

import pytest

from citeloop.runtime.config import ConfigError, ResearchConfig, load_config

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "research"


def test_default_yaml_matches_code_defaults():
    assert load_config(CONFIGS / "default.yaml") == ResearchConfig()


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_loads(path):
    assert isinstance(load_config(path), ResearchConfig)


def test_bad_values_name_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("budget:\n  max_searches: 0\n")
    with pytest.raises(ConfigError, match="budget.max_searches"):
        load_config(bad)


def test_top_level_must_be_a_mapping(tmp_path):
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
