"""The short answer: stated first, extracted in code from cited sentences, computed for
comparisons, and null with a reason when the evidence does not state it.

The small corpora here are hand-made: each page says one thing, so the expected answers
are read off the page text, not computed by the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from citeloop.eval.cli import main
from citeloop.runtime.answer_hops import answer_kind, question_options
from citeloop.runtime.answer_spans import date_mentions
from citeloop.runtime.corpus import Corpus, Document
from citeloop.runtime.index import BM25Index
from citeloop.runtime.replay import check_run
from citeloop.runtime.report import render_markdown
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink, read_run


def _kit(pages: dict[str, str]) -> ResearchKit:
    docs = [Document(id=f"d{i}", title=title, text=text) for i, (title, text) in enumerate(pages.items())]
    corpus = Corpus(docs, source="test-answer")
    return ResearchKit(corpus=corpus, index=BM25Index.build(corpus), index_seconds=0.0)


FILLER = {
    "Kelp Forest": "A kelp forest is an underwater area with a high density of kelp. It grows in cold water.",
    "Granite": "Granite is a coarse-grained igneous rock. It is composed mostly of quartz and feldspar.",
    "Violin": "The violin is a wooden string instrument. It is the smallest member of its family.",
}


def _answer(question: str, pages: dict[str, str]):
    """The short answer of researching `question` over the filler pages and `pages`."""
    result, _ = run_research(question, _kit({**FILLER, **pages}), out_dir=None, sink=MemorySink())
    return result.report.answer


@pytest.mark.parametrize(("question", "kind"), [
    ("Who directed Angel Eyes?", "entity"),
    ("When was Puneet Sira born?", "date"),
    ("In what year was the bridge opened?", "date"),
    ("How many records has the singer sold?", "number"),
    ("Are Christopher Nolan and Sathish Kalathil both film directors?", "yes_no"),
    ("Which band was formed first, The Exies or Circus Diablo?", "choice"),
    # the question is the last sentence: a statement before it says nothing of the answer's shape
    ("The director Arko Sen has an OBE. Does the director Lena Moss also have one?", "yes_no"),
    ("Is Dr. Tern older than Orla Fenn?", "yes_no"),
    ("Orla Fenn has an OBE. Who gave it to her?", "entity"),
])
def test_the_question_says_which_shape_of_answer_it_asks_for(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_options_and_dates_are_read_as_written() -> None:
    assert question_options("Who is older, Sid Haig or Vic Darchinyan?") == ["Sid Haig", "Vic Darchinyan"]
    assert [d.text for d in date_mentions("born 14 July 1939 in Fort Wayne, died on May 5, 2007")] == [
        "14 July 1939", "May 5, 2007"]
    assert date_mentions("It opened in 1932.")[0].value == (1932.0, 0.0, 0.0)


def test_angel_eyes_answers_luis_mandoki_first(kit: ResearchKit, tmp_path: Path) -> None:
    result, path = run_research("Who directed Angel Eyes?", kit, out_dir=tmp_path)
    answer = result.report.answer
    assert answer is not None and (answer.status, answer.kind, answer.text) == ("answered", "entity", "Luis Mandoki")
    kept = {c.claim_id: c for s in result.report.sections for c in s.claims}
    assert answer.claim_ids and set(answer.claim_ids) <= set(kept)
    cited = [card for card in result.report.evidence if card.card_id in kept[answer.claim_ids[0]].citations]
    assert any("Luis Mandoki" in card.quote for card in cited), "the answer is a span of a cited sentence"
    lines = render_markdown(result.report).splitlines()
    assert lines[2].startswith("**Answer:** Luis Mandoki [1]")
    assert len(result.plan.sub_questions) == 1, "a single-hop question is one sub-question"
    check = check_run(read_run(path))
    assert check.ok, check.divergence


def test_research_json_has_a_top_level_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["research", "Who directed Angel Eyes?", "--json", "--out", str(tmp_path)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["answer"]["text"] == "Luis Mandoki" and payload["answer"]["kind"] == "entity"
    assert payload["answer_reason"] is None
    assert payload["report"]["answer"]["claim_ids"] == payload["answer"]["claim_ids"]


def test_a_single_hop_answer_is_the_name_next_to_the_relation() -> None:
    kit = _kit({**FILLER, "Harbour Lights": "Harbour Lights is a 1963 British drama film directed by John Gilling. "
                                           "It stars Jean Marais and Dora Doll."})
    result, _ = run_research("Who directed Harbour Lights?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "John Gilling"


def test_a_bridge_answer_follows_the_film_to_its_director() -> None:
    kit = _kit({**FILLER,
                "Salt Marsh Road": "Salt Marsh Road is a thriller directed by Mara Quint.",
                "Port Elsa": "Port Elsa is a fishing town. The film Salt Marsh Road was shot there in 1979.",
                "Mara Quint": "Mara Quint is a director born in Dunmore."})
    result, _ = run_research("Who directed the film that was shot in Port Elsa in 1979?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Mara Quint"


def test_a_comparison_by_date_cites_both_sides() -> None:
    kit = _kit({**FILLER,
                "Orla Fenn": "Orla Fenn (born 3 March 1950) is an Irish painter.",
                "Bram Tolley": "Bram Tolley (born 12 June 1941) is a Welsh sculptor."})
    result, _ = run_research("Who is older, Orla Fenn or Bram Tolley?", kit, out_dir=None, sink=MemorySink())
    answer = result.report.answer
    assert (answer.kind, answer.text) == ("choice", "Bram Tolley")
    subqs = {c.split("-")[1] for c in answer.claim_ids}
    assert len(subqs) == 2, "both options' claims are cited"


def test_a_yes_no_comparison_is_computed_from_both_hops() -> None:
    kit = _kit({**FILLER,
                "Orla Fenn": "Orla Fenn is an Irish painter and film director.",
                "Bram Tolley": "Bram Tolley is a Welsh film director."})
    result, _ = run_research("Are Orla Fenn and Bram Tolley both film directors?", kit, out_dir=None, sink=MemorySink())
    assert (result.report.answer.kind, result.report.answer.text) == ("yes_no", "yes")


def test_no_evidence_gives_no_answer_with_a_reason() -> None:
    kit = _kit(FILLER)
    result, _ = run_research("Who directed Harbour Lights?", kit, out_dir=None, sink=MemorySink())
    answer = result.report.answer
    assert answer.status in ("not_found", "dead_end") and answer.text is None and answer.reason
    assert render_markdown(result.report).splitlines()[2].startswith("**Answer:** ")


def test_options_named_whole_and_after_an_opening_verb() -> None:
    from citeloop.runtime.planner import RulePlanner

    plan = RulePlanner().plan("Which album was released first, Don't Freak Me Out or Love & War (Barlowgirl Album)?")
    assert [a.title for a in plan.axes] == ["Don't Freak Me Out", "Love & War (Barlowgirl Album)"]
    assert question_options("Was Jamie Curry or Alyaksey Vasilewski born first?") == ["Jamie Curry",
                                                                                     "Alyaksey Vasilewski"]
    plan = RulePlanner().plan("Was Jamie Curry or Alyaksey Vasilewski born first?")
    assert answer_kind(plan.question, plan) == "choice"


def test_a_value_of_the_right_shape_without_the_relation_is_not_an_answer_sentence() -> None:
    from citeloop.runtime.answer_sentences import states_kind

    planted = "Less often mentioned is the role of Miriam Vell, who remained involved for 17 years."
    assert not states_kind("number", "Which plant is larger?", {"plant", "larger"}, planted)
    assert states_kind("number", "How many people live in Lund?", {"live", "peopl"}, "About 90,000 people live there.")


def test_a_where_question_is_answered_by_a_name_after_a_place_word() -> None:
    kit = _kit({**FILLER, "Harl Vint": "Harl Vint was a Welsh painter and a friend of Oskar Brand. "
                                      "He died in Tenby in 1970."})
    answer = run_research("Where did Harl Vint die?", kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == "Tenby", "Oskar Brand is a name, but not a place"


def test_gaps_name_the_entity_found_instead_of_a_slot_and_empty_sections_are_not_headings() -> None:
    kit = _kit({**FILLER, "Salt Marsh Road": "Salt Marsh Road is a 1979 film directed by Mara Quint."})
    result, _ = run_research("Where was the director of film Salt Marsh Road born?", kit, out_dir=None,
                             sink=MemorySink())
    markdown = render_markdown(result.report)
    assert "{sq" not in markdown and any("Mara Quint" in g.question for g in result.report.gaps)
    headings = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert "## Answer" not in headings, "the answer hop kept no claim: its section is not shown"


def test_no_identical_query_is_issued_twice_in_a_run(kit: ResearchKit) -> None:
    for question in ("Who directed the film that was shot in or around Leland, North Carolina in 1986?",
                     "Are Christopher Nolan and Sathish Kalathil both film directors?",
                     "Which magazine was started first, Arthur's Magazine or First for Women?"):
        sink = MemorySink()
        run_research(question, kit, out_dir=None, sink=sink)
        queries = [e.query.lower() for e in sink.events if e.type == "query_issued"]
        assert len(queries) == len(set(queries)), queries


def test_a_question_word_in_the_last_clause_runs_the_chain_forwards() -> None:
    """"X starred in a series that aired on what network?": the series first (the name next
    to the word "series", not the character's title), then its network."""
    kit = _kit({**FILLER,
                "Tam Ness": 'Tam Ness is an actor. He is best known for playing Gil Orme in the series "Harbour Watch".',
                "Gil Orme": "Gil Orme is a fictional character portrayed by Tam Ness.",
                "Harbour Watch": "Harbour Watch is a drama series that aired on the network Kestrel One."})
    result, _ = run_research("Tam Ness starred in a series that aired on what network?", kit, out_dir=None,
                             sink=MemorySink())
    hops = result.report.answer
    assert hops.text == "Kestrel One", hops


@pytest.mark.parametrize(("asked", "expected"), [("what state", "Oregon"), ("what city", "Portland, Oregon")])
def test_a_place_is_answered_at_the_level_the_question_asks(asked: str, expected: str) -> None:
    kit = _kit({**FILLER, "Rona Vell": "Rona Vell is a singer-songwriter from Portland, Oregon."})
    answer = run_research(f"Rona Vell comes from {asked}?", kit, out_dir=None,
                          sink=MemorySink())[0].report.answer
    assert answer.text == expected


def test_the_thing_owned_is_a_name_of_its_own() -> None:
    kit = _kit({**FILLER, "Dax Brill": "Dax Brill is a retired basketball player who hosts Rolo TV's Court Time Weekly."})
    answer = run_research("What show does Dax Brill host?", kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == "Court Time Weekly"


def test_the_answer_whose_own_article_names_the_asked_kind_wins() -> None:
    """"which actress": of two names in the cited sentence, the one whose own page calls her an actress."""
    kit = _kit({**FILLER,
                "Night Ward": "Night Ward is a 1994 film that starred Lena Dobbs and Parker Hale as a surgeon.",
                "Lena Dobbs": "Lena Dobbs is a Canadian actress known for stage roles.",
                "Parker Hale": "Parker Hale is a Canadian rugby union club."})
    answer = run_research("Night Ward starred which Canadian actress?", kit, out_dir=None, sink=MemorySink())[0]
    assert answer.report.answer.text == "Lena Dobbs"


@pytest.mark.parametrize(("second", "expected"), [("Tarrow, Maine", "no"), ("Tarrow, Vermont", "yes")])
def test_same_state_is_compared_at_the_level_asked_not_by_any_shared_name(second: str, expected: str) -> None:
    kit = _kit({**FILLER,
                "Orm Field Airport": "Orm Field Airport is a public airport in Orm, Vermont, United States.",
                "Tarrow Airport": f"Tarrow Airport is a public airport in {second}, United States."})
    answer = run_research("Are Orm Field Airport and Tarrow Airport in the same state?", kit, out_dir=None,
                          sink=MemorySink())[0].report.answer
    assert (answer.kind, answer.text) == ("yes_no", expected), answer.reason


def test_a_year_asked_is_answered_with_the_year_of_the_date_found() -> None:
    pages = {**FILLER, "Orla Fenn": "Orla Fenn (born 17 July 1949) is an Irish painter."}
    year, _ = run_research("In what year was Orla Fenn born?", _kit(pages), out_dir=None, sink=MemorySink())
    date, _ = run_research("When was Orla Fenn born?", _kit(pages), out_dir=None, sink=MemorySink())
    assert (year.report.answer.text, date.report.answer.text) == ("1949", "17 July 1949")


def test_a_word_of_office_before_a_name_is_left_out_of_the_answer() -> None:
    pages = {**FILLER, "Merrow Abbey": "Merrow Abbey is a ruined abbey. It was founded by King Oskar Dal of Merrow in 1120."}
    result, _ = run_research("Who founded Merrow Abbey?", _kit(pages), out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Oskar Dal of Merrow", result.report.answer
    # "Queen Victoria": one word would be left, so the name stays whole.
    from citeloop.runtime.answer import _as_asked
    assert _as_asked("Who was her mother?", "Queen Victoria") == "Queen Victoria"


def test_a_comparison_word_inside_an_option_compares_nothing() -> None:
    from citeloop.runtime.answer_hops import comparison_value

    # "Before" names a film here; "younger" is what is compared: the later birth wins.
    assert comparison_value("Which film whose director is younger, Before Dawn Falls or Tern Bay?") == ("date", True)
    assert comparison_value("Which film came out first, Gull Point or The Last Ones?") == ("date", False)


def test_a_compared_date_is_the_one_the_sentence_gives_its_option() -> None:
    # Gull Point's own page dates a later event; its year is the one after its name elsewhere.
    answer = _answer("Which film came out first, Gull Point or The Last Ones?", {
        "Gull Point": "In 1988 the film Gull Point was restored by the national film archive.",
        "Harbour Lights": "Harbour Lights is a drama serial. It was followed by the film Gull Point (1952).",
        "The Last Ones": "The Last Ones is a 1961 war film shot in Norway."})
    assert (answer.kind, answer.text) == ("choice", "Gull Point"), answer.reason


@pytest.mark.parametrize(("sentence", "name", "year", "expected"), [
    ("Murder, She Said is a 1961 comedy film.", "Murder, She Said", "1961", True),
    ("Gurinder Chadha,( born 10 January 1960) is a director.", "Gurinder Chadha", "1960", True),
    ("It was followed by Gull Point( 1952).", "Gull Point (1952 Film)", "1952", True),
    ("In 1966 Gull Point was edited for television.", "Gull Point", "1966", False),
    ("Gull Point was edited for television in 1966.", "Gull Point", "1966", False),
    ("Heatwave is a 1982 Australian film.", "Murder, She Said", "1982", False),
])
def test_a_value_describes_the_name_it_follows(sentence: str, name: str, year: str, expected: bool) -> None:
    from citeloop.runtime.answer_spans import describes
    start = next(m.start for m in date_mentions(sentence) if year in m.text)
    assert describes(sentence, name, start) is expected


@pytest.mark.parametrize(("sentence", "name", "finds", "expected"), [
    ("He was born in Glen Cove, New York, and raised in Ohio.", "Glen Cove", "", "Glen Cove, New York"),
    ("She died at Schloss Nymphenburg, Munich.", "Schloss Nymphenburg", "", "Schloss Nymphenburg, Munich"),
    ("He was born in Alexandria.", "Alexandria", "", "Alexandria"),
    ("He was born in New York, New York.", "New York", "", "New York"),
    ("It toured Finland, Ireland and Spain.", "Finland", "", "Finland"),
    ("He was born in Portland, Oregon.", "Portland", "state", "Portland"),
    # every enclosing region the sentence gives, up to a country
    ("(born 14 August 1950 in Glen Cove, Long Island, New York) is a director.", "Glen Cove", "",
     "Glen Cove, Long Island, New York"),
    ("He was born in Velden, Carinthia, Austria, Europe.", "Velden", "", "Velden, Carinthia, Austria"),
])
def test_a_plain_where_is_answered_with_the_place_as_the_sentence_places_it(
        sentence: str, name: str, finds: str, expected: str) -> None:
    from citeloop.runtime.answer_places import where_it_lies
    assert where_it_lies(sentence, name, finds) == expected


def test_where_someone_was_born_is_answered_with_the_town_and_its_region() -> None:
    answer = _answer("Where was Orla Fenn born?", {
        "Orla Fenn": "Orla Fenn (born 3 March 1950) is an Irish painter. She was born in Glen Cove, New York, "
                     "to a family of sailors."})
    assert (answer.kind, answer.text) == ("entity", "Glen Cove, New York")


def test_a_nationality_word_does_not_answer_which_person() -> None:
    answer = _answer("Which television actor starred in Harbour Lights?", {
        "Harbour Lights": "Harbour Lights is a drama series.",
        "Ola Berg": "Ola Berg (born 3 March 1950) is an American television actor. He starred in Harbour Lights."})
    assert answer.text != "American" and "American" not in answer.candidates, answer


def test_an_answer_hop_is_not_met_by_a_page_that_names_its_entity_without_the_answer() -> None:
    # The whole-question search reads the actress's page, which names the director but gives no
    # birth date: the hop about the director's birth must still search and read his article.
    answer = _answer("Which film has the director born first, Gull Point or Red Harbour?", {
        "Gull Point": "Gull Point is a 1952 drama film directed by Ola Berg.",
        "Ola Berg": "Ola Berg (born 3 March 1931) was a Norwegian filmmaker.",
        "Red Harbour": "Red Harbour is a 1960 film directed by Ivo Lind and starring Ada Moss.",
        "Ada Moss": "Ada Moss is a Danish actress who was first seen in Red Harbour, the film that the director "
                    "Ivo Lind made first.",
        "Ivo Lind": "Ivo Lind (born 12 June 1920) is a Danish film director."})
    assert (answer.kind, answer.text) == ("choice", "Red Harbour"), answer.reason


@pytest.mark.parametrize(("quote", "expected"), [
    ("Lars Hallen (born 2 June 1946) is a Swedish film director.", True),
    ("He first became known for directing music videos.", False),
])
def test_a_nationality_is_stated_by_a_country_word_not_the_word_nationality(quote: str, expected: bool) -> None:
    from citeloop.runtime.answer_sentences import states_kind
    assert states_kind("entity", "What nationality is the director of film Gull Point?", {"nation"}, quote) \
        is expected


@pytest.mark.parametrize(("name", "expected"), [
    ("United States", True), ("Panamanian-American", True), ("Swedish", True),
    ("United States of Whatever", False), ("British Whig", False),
])
def test_a_nationality_answer_is_a_country_whole(name: str, expected: bool) -> None:
    from citeloop.runtime.answer_places import is_country
    assert is_country(name) is expected


@pytest.mark.parametrize(("sentence", "roles"), [
    ("Ola Berg is a Norwegian professional footballer who plays as a central defender for Molde.",
     ["central defender", "Norwegian professional footballer"]),
    ("Tam Fenn (1903 - 1941) was a pioneering British aviator who flew alone to Australia.",
     ["pioneering British aviator"]),
    ("He is best known as the lead vocalist of the band Gull Point.", ["lead vocalist"]),
    ("Gull Point is a town in Norway.", ["town"]),
    ("He moved to Gull Point in 1950.", []),
])
def test_a_role_is_read_from_as_a_and_is_a(sentence: str, roles: list[str]) -> None:
    from citeloop.runtime.answer_slots import roles_in
    assert [r for r, _ in roles_in(sentence)] == roles


def test_what_position_someone_plays_is_answered_by_the_role_not_a_name() -> None:
    answer = _answer("What position does Ola Berg play?", {
        "Ola Berg": "Ola Berg (born 3 March 1990) is a Norwegian professional footballer who plays as a central "
                    "defender for Molde FK in the Eliteserien."})
    assert answer.text == "central defender", answer


@pytest.mark.parametrize(("question", "asks"), [
    ("What was the profession of Tam Fenn, whose life was filmed in Gull Point?", True),
    ("What role did Ola Berg perform in the band?", True),
    ("Which position does Ola Berg play?", True),
    ("Which film featured the role of Tam Fenn?", False),  # the noun is past the wh-word's next three words
    ("What is the population of Gull Point?", False),
])
def test_a_role_is_asked_by_what_or_which_and_a_role_noun(question: str, asks: bool) -> None:
    from citeloop.runtime.answer_slots import asks_role
    assert asks_role(question) is asks


def test_what_someones_profession_was_is_answered_by_the_role_not_a_name() -> None:
    answer = _answer("What was the profession of Tam Fenn?", {
        "Tam Fenn": "Tam Fenn (1 July 1903 - 5 January 1941) was a pioneering British aviator who flew alone from "
                    "Merrow to Gull Point with Ola Berg."})
    assert answer.text == "pioneering British aviator", answer


def test_an_option_is_not_judged_by_another_options_article() -> None:
    # The whole-question search files Tam Fenn's sentence under Ola Berg's hop too; it says
    # nothing of Ola Berg.
    answer = _answer("Which singer is American, Ola Berg or Tam Fenn?", {
        "Ola Berg": "Ola Berg is an English singer and bassist of the band Level 42.",
        "Tam Fenn": "Tam Fenn (born 1970) is an American singer, songwriter and rapper."})
    assert (answer.kind, answer.text) == ("choice", "Tam Fenn"), answer.reason


def test_where_someone_studied_is_answered_by_the_institution_not_a_place() -> None:
    kit = _kit({**FILLER, "Orla Penn": "Orla Penn is an Irish sculptor. "
                                      "Orla Penn, who grew up in Cork, is a graduate of Trinity College Dublin."})
    answer = run_research("Where did Orla Penn graduate from?", kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == "Trinity College Dublin", "Cork follows 'in', but she grew up there"


@pytest.mark.parametrize(("question", "expected"), [
    ("Where did the director of film Blue Gate graduate from?", True),
    ("Where does Anna Holt's father work at?", True),
    ("Where did Anna Holt die?", False),
    ("What university did Anna Holt attend?", False),  # no "where": the noun says what is asked
])
def test_where_with_a_verb_of_study_or_work_asks_for_an_institution(question: str, expected: bool) -> None:
    from citeloop.runtime.question_asks import asks_institution
    assert asks_institution(question) is expected


def test_a_graduate_of_a_university_states_where_one_graduated_from() -> None:
    from citeloop.runtime.answer_sentences import states_kind
    from citeloop.runtime.bridging import relation_cue_terms
    relation = relation_cue_terms({"graduat"})
    question = "Where did Chris Holm graduate from?"
    assert "studi" in relation, "articles say 'studied at' for 'graduated from'"
    assert states_kind("entity", question, relation, "He is a graduate of University of California, Los Angeles.")
    assert not states_kind("entity", question, relation, "He graduated with honours.")


def test_a_word_in_an_options_brackets_does_not_make_every_page_about_it() -> None:
    """"Illusions (1982 Film)": the hop is about Illusions, not about "Film", so the other
    option's page ("... is a 2010 British comedy film ...") is not on its topic."""
    from citeloop.runtime.entity_titles import names_entity
    from citeloop.runtime.subq_state import hop_entities
    entities = ["Illusions (1982 Film)", "Afterlife Road", "Illusions", "1982", "Film"]
    hop = hop_entities(entities, "Illusions (1982 Film) director")
    assert hop == ["Illusions (1982 Film)", "Illusions"]
    other = SimpleNamespace(title="Afterlife Road",
                            quote="Afterlife Road is a 2010 British comedy film directed by Gurinder Chadha.")
    assert not names_entity(other, [e.lower() for e in hop])
    assert names_entity(SimpleNamespace(title="Illusions (1982 film)", quote="It is a drama."), [e.lower() for e in hop])


def test_the_answer_hop_asks_what_follows_the_bridge_not_what_describes_the_start() -> None:
    """"... a fictional character from an Australian soap opera created by who?": the soap
    opera's hop asks "created", so "Elly Conway is a fictional character from the Australian
    soap opera ..." (every word of the question but that one) does not answer it."""
    from citeloop.runtime.planner import RulePlanner, after_bridge
    question = "Kate Ramsay is a fictional character from an Australian soap opera created by who?"
    assert after_bridge(question).strip() == "created by who?"
    assert after_bridge("Who directed Angel Eyes?") == ""
    assert RulePlanner().plan(question).sub_questions[1].search_query == "{sq1} created"
    answer = _answer(question, {
        "Kate Ramsay": 'Kate Ramsay is a fictional character from the Australian soap opera "Neighbours", '
                       "played by Ashleigh Brewer.",
        "Neighbours": "Neighbours is an Australian television soap opera. It was first broadcast in 1985. "
                      "It was created by TV executive Reg Watson.",
        "Elly Conway": 'Elly Conway is a fictional character from the Australian soap opera "Neighbours", '
                       "played by Jodi Anasta.",
    })
    assert answer.text == "Reg Watson"


@pytest.mark.parametrize(("name", "office"), [
    ("Emperor of Austria", True),
    ("President of Somalia", True),
    ("the Duke of Nassau", True),
    ("Zita of Bourbon-Parma", False),
    ("Ernest, Duke of Bavaria", False),  # a person, then the office
])
def test_an_office_names_no_one(name: str, office: bool) -> None:
    from citeloop.runtime.answer_spans import is_office
    assert is_office(name) is office


def test_who_is_not_answered_by_an_office() -> None:
    answer = _answer("Who is the paternal grandmother of Karl Velm?", {
        "Karl Velm": "Karl Velm (born 1961) is an Austrian politician, the son of Otto Velm.",
        "Otto Velm": "The eldest son of Franz Velm, the last Emperor of Austria and King of Hungary, and his wife, "
                     "Zita of Bourbon-Parma, Otto Velm was born as third in line to the thrones.",
    })
    assert answer.text == "Zita of Bourbon-Parma"


def test_in_charge_of_is_stated_with_an_office() -> None:
    """"Who was in charge of Somalia?" is answered by "... elected X as the new President of Somalia"."""
    from citeloop.runtime.bridging import relation_cue_terms
    assert {"presid", "leader", "governor"} <= relation_cue_terms({"charg"})


@pytest.mark.parametrize(("question", "kind"), [
    ("How many times was the man who was premier of Tessaly when Ivo Brenn was minister, premier?", "number"),
    ("How long ago did the man who founded Calder die?", "date"),  # the longest opener that fits
    ("How old was Ivo Brenn when he died?", "number"),
    ("When did the man who has how many children die?", "date"),
])
def test_the_question_s_opener_says_what_it_asks(question: str, kind: str) -> None:
    """A clause after the opener ("... when Ivo Brenn was minister") does not change what the
    question asks."""
    assert answer_kind(question) == kind


def test_a_number_inside_a_date_counts_nothing() -> None:
    from llm_scripts import card, claim_of

    from citeloop.runtime.answer_spans import best_span
    quote = "Ivo Brenn (6 July 1843 - 2 August 1915) was premier of Tessaly for 4 terms."
    hop = card("c1", quote, "d1", "sq2")
    found = best_span("number", [(claim_of(hop), hop)], {"term", "premier"}, ["Ivo Brenn"],
                      "How many terms was Ivo Brenn premier of Tessaly?")
    assert [f.text for f in found] == ["4"]


def test_a_place_of_the_asked_kind_by_its_form_needs_no_place_word() -> None:
    from llm_scripts import card, claim_of

    from citeloop.runtime.answer_spans import best_span
    quote = "Ada Klee is a lawyer and former mayor of Calder City, and an adviser to the Ostrian Palace."
    hop = card("c1", quote, "d1", "sq2")
    found = best_span("entity", [(claim_of(hop), hop)], {"mayor", "work"}, ["Ola Brenn", "Ada Klee"],
                      "Ola Brenn is a consultant who has worked with the mayor of what city?", finds="city")
    assert found and found[0].text == "Calder City", [(f.text, f.score) for f in found]


def test_who_is_not_answered_by_a_place_of_a_life_or_a_country() -> None:
    from llm_scripts import card, claim_of

    from citeloop.runtime.answer_spans import best_span
    quote = "Ada Klee (born 1975 in Calderton) is a Tessalian children's author and illustrator, published by Gull Press."
    hop = card("c1", quote, "d1", "sq2")
    question = "Ola Brenn was the story editor for the show Scaredy Tern which was written by who?"
    found = [f.text for f in best_span("entity", [(claim_of(hop), hop)], {"written", "write"},
                                       ["Ola Brenn", "Scaredy Tern", "Ada Klee"], question)]
    assert "Calderton" not in found and found[0] == "Gull Press", found
    # a place question still takes it
    found = best_span("entity", [(claim_of(hop), hop)], {"born"}, ["Ada Klee"], "Where was Ada Klee born?")
    assert found and found[0].text == "Calderton", found


@pytest.mark.parametrize(("question", "kind"), [
    ("Under what name did the founder of Tern use when he released his album Void?", "entity"),
    ("Who was president when the area where Gull Farm is located became a state?", "entity"),
    ("When did Ola Brenn die?", "date"),
    ("Ola Brenn died when?", "date"),
    # a title's first word may be a yes/no opener; a question that asks which year is no yes/no
    ("Do Lafzon Ka Tern, is a 2016 film, it is a remake of Gull, released in which year?", "date"),
    ("Do Lafzon Ka Tern and Gull share a director?", "yes_no"),
])
def test_a_when_after_a_lower_case_word_opens_a_clause(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_a_page_that_calls_itself_the_asked_kind_answers_which_kind() -> None:
    # The background search reads the answer's own page; its opening sentence calls it what
    # the question asks for ("a ... comedy film"), and it states the answer over a sentence
    # with as many of the question's words that describes someone else.
    answer = _answer("Which 1988 Velm comedy produced by Ada Kell had music composed by the only female "
                     "music director in the Velm film industry?", {
        "Mira Orr": "Mira Orr is a composer. She is the only female music director in the Velm film industry.",
        "Tam Dole": "Tam Dole (born 1961) is a music director and drummer in the Velm film industry.",
        "Jestora": "Jestora is a 1988 Velm comedy film, produced by Ada Kell on the Orbit Films banner.",
    })
    assert (answer.status, answer.text) == ("answered", "Jestora"), answer
