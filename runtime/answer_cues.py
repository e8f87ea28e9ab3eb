"""The cue words of questions and answers (`runtime/data/answer_cues.yaml`), read once: what
asks a date, a number, a place or yes/no, which words win a comparison, and the nouns for kinds
of place and organisation. Used by the planner's clause reading (`citeloop.runtime.clauses`),
the place forms (`citeloop.runtime.place_forms`) and the answer finder
(`citeloop.runtime.answer_spans`, `citeloop.runtime.answer`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from citeloop.runtime.datafiles import read_data_yaml


@dataclass(frozen=True)
class Cues:
    yes_no_openers: frozenset[str]
    date_cues: tuple[str, ...]
    year_cues: tuple[str, ...]
    address_words: frozenset[str]
    number_cues: tuple[str, ...]
    lowest_wins: frozenset[str]
    highest_wins: frozenset[str]
    date_comparisons: frozenset[str]
    shared_value_cues: frozenset[str]
    place_cues: tuple[str, ...]
    origin_cues: tuple[str, ...]
    country_cues: tuple[str, ...]
    region_nouns: frozenset[str]
    town_nouns: frozenset[str]
    role_nouns: frozenset[str]
    award_nouns: frozenset[str]
    cause_cues: tuple[str, ...]
    cause_phrases: tuple[str, ...]
    institution_cues: tuple[str, ...]
    institution_nouns: frozenset[str]
    administrative_units: frozenset[str]
    organisation_nouns: frozenset[str]
    person_nouns: frozenset[str]
    lifespan_cues: tuple[str, ...]
    measure_nouns: frozenset[str]
    measure_units: frozenset[str]


@cache
def cues() -> Cues:
    data = read_data_yaml("answer_cues.yaml")
    return Cues(frozenset(data["yes_no_openers"]), tuple(data["date_cues"]), tuple(data["year_cues"]),
                frozenset(data["address_words"]), tuple(data["number_cues"]),
                frozenset(data["lowest_wins"]), frozenset(data["highest_wins"]),
                frozenset(data["date_comparisons"]), frozenset(data["shared_value_cues"]),
                tuple(data["place_cues"]), tuple(data["origin_cues"]), tuple(data["country_cues"]),
                frozenset(data["region_nouns"]),
                frozenset(data["town_nouns"]), frozenset(data["role_nouns"]),
                frozenset(data["award_nouns"]), tuple(data["cause_cues"]), tuple(data["cause_phrases"]),
                tuple(data["institution_cues"]), frozenset(data["institution_nouns"]),
                frozenset(data["administrative_units"]), frozenset(data["organisation_nouns"]),
                frozenset(data["person_nouns"]), tuple(data["lifespan_cues"]),
                frozenset(data["measure_nouns"]), frozenset(data["measure_units"]))
