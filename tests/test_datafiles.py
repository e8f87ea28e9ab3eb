"""The runtime's data files parse to the same objects with libyaml as with PyYAML's
pure-Python safe loader, and a damaged catalogue is still one clear error."""

from pathlib import Path

import pytest
import yaml

from citeloop.runtime import datafiles
from citeloop.runtime.injection_cues import CueCatalogueError, load_catalogue

DATA = Path(datafiles.__file__).parent / "data"


@pytest.mark.parametrize("path", sorted(DATA.glob("*.yaml")), ids=lambda p: p.name)
def test_each_data_file_parses_as_the_pure_python_loader_does(path: Path) -> None:
    expected = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)  # noqa: S506
    assert datafiles.read_data_yaml(path.name) == expected
    assert expected  # not an empty file


def test_the_fast_loader_is_a_safe_one() -> None:
    with pytest.raises(yaml.YAMLError):
        datafiles.parse_yaml("!!python/object/apply:os.system ['true']")


def test_a_damaged_catalogue_is_one_error(tmp_path: Path) -> None:
    bad = tmp_path / "cues.yaml"
    bad.write_text("classes: [unclosed\n", encoding="utf-8")
    with pytest.raises(CueCatalogueError, match="not YAML"):
        load_catalogue(bad)
