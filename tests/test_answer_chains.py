"""Relation chains and comparisons on hand-made corpora and sentences: the next hop's entity is
a name, not a describing word, nor a namesake's; a hop about an entity is answered by that
entity's own article even where its sentences only say "he"; the bridge is the leader whose
article was read; a biography's words for an attribute ("died") meet the question's ("place of
death"); a plain "where" is answered by the town; a question word inside a title asks nothing;
births and deaths are dated by the dates of a life; parents are read from "the son of A and
B"; countries are compared by country."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from citeloop.runtime.answer_hops import answer_kind
from citeloop.runtime.answer_sentences import states_kind
from citeloop.runtime.bridging import describes_noun, with_attribute_cues
from citeloop.runtime.countries import countries_named
from citeloop.runtime.entity_titles import is_namesake, names_entity
from citeloop.runtime.hops import HopResolution
from citeloop.runtime.parentage import parent_slot, parents_named
from citeloop.runtime.session import run_research
from citeloop.runtime.subq_state import SubQuestionState
from citeloop.runtime.text import content_terms, entity_spans
from citeloop.trajectories.models import SubQuestion
from citeloop.trajectories.runfile import MemorySink
from llm_scripts import card
from test_answer import FILLER, _kit


@pytest.mark.parametrize(("quote", "name", "describes"), [
    ("Velm Harbour is an Indian Bengali drama film directed by Arko Sen.", "Indian Bengali", True),
    ("Velm Harbour is an Indian Bengali drama film directed by Arko Sen.", "Arko Sen", False),
    ("Fatma Deniz is a 1972 Turkish drama film.", "Turkish", True),
    ("They toured as the Hong Kong duo Twins.", "Hong Kong", True),
    ("Kira Moss is an American actress.", "American", True),
    ("The film was made by the Coen Brothers in 1990.", "Coen Brothers", False),  # "in" is no noun
    ("It is the Coen Brothers directed thriller.", "Coen Brothers", False),  # a past verb follows
    ("She married Arko Sen and moved to Delhi.", "Arko Sen", False),  # no article before
])
def test_a_name_used_only_to_describe_a_noun_is_told_apart(quote: str, name: str, describes: bool) -> None:
    assert describes_noun(quote, name) is describes


def test_the_next_hop_follows_the_director_not_the_describing_words() -> None:
    """"Indian Bengali" stands as near the question's words as the director does; followed,
    it would lead to another Indian Bengali screenwriter's dates."""
    kit = _kit({**FILLER,
                "Velm Harbour": "Velm Harbour is an Indian Bengali drama film directed by Arko Sen.",
                "Arko Sen": "Arko Sen (4 May 1961 - 2 June 2020) is a screenwriter.",
                "Tomas Ray": "Tomas Ray (2 June 1930 - 5 May 1990) is an Indian Bengali screenwriter and producer."})
    result, _ = run_research("When was the director of film Velm Harbour born?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "4 May 1961", result.report.answer


def test_a_biography_states_the_attribute_in_its_own_words() -> None:
    """The key "death" is met by "died"; "place" alone is not more."""
    terms = with_attribute_cues(content_terms("Oskar Dal place death"), content_terms("He died in Tessa."))
    assert "death" in terms
    assert "death" not in with_attribute_cues(content_terms("Oskar Dal place death"),
                                              content_terms("He named a new minister in his place."))
    assert "birth" not in with_attribute_cues(["birth"], content_terms("He died in Tessa."))


def test_the_own_article_of_the_entity_found_answers_even_where_it_says_he() -> None:
    """The father is named "King Oskar Dal of Merrow" in his daughter's article, his own
    article is titled without "King", and the sentence that states where he died names him
    only as "he": it is still his evidence, and beats a sister's article that names him."""
    kit = _kit({**FILLER,
                "Princess Lira Vane": "Princess Lira Vane (1 June 1901 - 16 October 1986) was the eldest daughter "
                                      "of King Oskar Dal of Merrow.",
                "Oskar Dal of Merrow": "Oskar Dal of Merrow (1869 - 1947) was the King of Merrow from 1900. "
                                       "During the war, Oskar Dal named a new minister. "
                                       "He then went into exile to Tessa, Ondria, where he died.",
                "Princess Mara Vane": "Princess Mara Vane (1902 - 1944) was the second daughter of King Oskar "
                                      "Dal of Merrow and his wife Elna."})
    result, _ = run_research("Where was the place of death of Princess Lira Vane's father?", kit, out_dir=None,
                             sink=MemorySink())
    # A plain "where" is answered with the town as the sentence places it.
    assert result.report.answer.text == "Tessa, Ondria", result.report.answer


@pytest.mark.parametrize(("asked", "expected"), [("Where did Rona Vell die?", "Portland, Oregon"),
                                                 ("Rona Vell died in what state?", "Oregon"),
                                                 ("Rona Vell died in what city?", "Portland, Oregon")])
def test_a_plain_where_is_answered_by_the_town(asked: str, expected: str) -> None:
    """The region stands nearer "died", but a plain "where" asks for the most specific place,
    named with the region the sentence puts it in."""
    kit = _kit({**FILLER, "Rona Vell": "Rona Vell was a singer-songwriter. She moved to Portland, Oregon, "
                                       "where she died."})
    answer = run_research(asked, kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == expected, answer


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the place of birth of the performer of song That's When Your Heartaches Begin?", "entity"),
    ('Who sang "Where Do I Begin?"', "entity"),
    ("In what year was the film Where Angels Fear to Tread released?", "date"),
    ("When was the performer of song Lonely Road born?", "date"),
])
def test_a_question_word_inside_a_title_asks_nothing(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


@pytest.mark.parametrize(("question", "quote", "states"), [
    ("When was the director of film Velm Harbour born?", "Velm Harbour is a 1972 drama film by Arko Sen.", False),
    ("When was the director of film Velm Harbour born?", "Arko Sen (4 May 1961 - 2 June 2020) is a screenwriter.",
     True),
    ("When was the director of film Velm Harbour born?", "Arko Sen (4 May 1961 2 June 2020) is a screenwriter.",
     True),  # two dates in the brackets, the dash lost
    ("Who was born first, Arko Sen or Tomas Ray?", "Tomas Ray, born 2 June 1930 in Ajmer, is a producer.", True),
    ("Who died first, Arko Sen or Tomas Ray?", "His first film, The Housemaid (1960), was a success.", False),
    ("When was Velm Harbour released?", "Velm Harbour is a 1972 drama film by Arko Sen.", True),
])
def test_a_birth_or_death_is_stated_only_by_the_dates_of_a_life(question: str, quote: str, states: bool) -> None:
    """Which sentences can state a dated answer (the answer hop's claims come from them)."""
    assert states_kind("date", question, set(), quote) is states


def test_a_pinned_title_is_not_read_from_its_namesake() -> None:
    """"Velm Harbour (1940 Film)": the 1981 film of the same name names another director."""
    kit = _kit({**FILLER,
                "Velm Harbour": "Velm Harbour is a 1981 Bollywood drama film produced by Rao Films and directed by "
                                "Tomas Ray. The film is a remake of the Tamil movie Mouna Geeth.",
                "Velm Harbour (1940 film)": "Velm Harbour (The Only Road) is a 1940 social drama directed by Arko Sen.",
                "Arko Sen": "Arko Sen (4 May 1901 - 2 June 1970) was a screenwriter.",
                "Tomas Ray": "Tomas Ray (2 June 1930 - 5 May 1990) was a screenwriter and producer."})
    result, _ = run_research("When was the director of film Velm Harbour (1940 Film) born?", kit, out_dir=None,
                             sink=MemorySink())
    assert result.report.answer.text == "4 May 1901", result.report.answer
    cited = {card.title for card in result.report.evidence}
    assert "Velm Harbour" not in cited, cited


@pytest.mark.parametrize(("title", "namesake"), [
    ("Velm Harbour", True), ("Velm Harbour (1981 film)", True), ("Velm Harbour (1940 film)", False),
    ("Arko Sen", False)])
def test_a_page_of_the_same_name_with_another_qualifier_is_a_namesake(title: str, namesake: bool) -> None:
    assert is_namesake(title, ["Velm Harbour (1940 Film)", "Velm Harbour"]) is namesake


class _Hops(HopResolution):
    """Just enough run state for `_confirm_bridge`: the hop's usable cards and the resolutions."""

    def __init__(self, cards: list, father_hop: list | None = None) -> None:
        self.cards, self.resolved, self.father_hop = cards, {}, father_hop or []
        sq1 = SubQuestion(id="sq1", axis="a1", question="Who was the father?", search_query="Hermann father",
                          stop_condition="one source")
        self.states = {"sq1": SubQuestionState(sq=sq1, status="satisfied", query="Hermann father", entities=[])}
        self.plan = SimpleNamespace(entities=["Hermann"])  # the question's own names are no bridge

    def _usable_cards(self, sid: str) -> list:
        return self.cards

    def _on_topic_cards(self, sid: str) -> list:
        return self.father_hop  # the cards of the hop that asked for the father (sq1)


def test_the_bridge_is_the_leader_whose_own_article_the_hop_read() -> None:
    """The next-hop query carried "Louis the Junker Burg Grebenstein Otto": a more relevant card
    naming the runner-up Otto in passing does not make Otto the father."""
    passing = card("c1", "Louis I of Chiny (murdered 29 September 1025) was a son of Otto I.", doc_id="d1", subq="sq2")
    own = card("c2", "He was landgrave of Hesse until his death.", doc_id="d2", subq="sq2")
    passing = passing.model_copy(update={"title": "Louis I, Count of Chiny",
                                         "grade": passing.grade.model_copy(update={"relevance": 0.9})})
    own = own.model_copy(update={"title": "Louis the Junker", "grade": own.grade.model_copy(update={"relevance": 0.4})})
    state = SubQuestionState(sq=SubQuestion(id="sq2", axis="a2", question="When did he die?", search_query="{sq1} die",
                                            stop_condition="one source", depends_on=["sq1"]),
                             status="searching", query="q", entities=["Louis the Junker", "Burg Grebenstein", "Otto"])
    hops = _Hops([passing, own])
    hops._confirm_bridge(state)
    assert hops.resolved == {"sq1": "Louis the Junker"}
    hops = _Hops([passing])  # without the leader's article, the card that names a candidate decides
    hops._confirm_bridge(state)
    assert hops.resolved == {"sq1": "Otto"}
    # ... unless the father hop's own evidence puts that candidate in the mother's place
    parents = card("c3", "Hermann was the son of Louis the Junker and Otto.", doc_id="d3", subq="sq1")
    hops = _Hops([passing], father_hop=[parents])
    hops._confirm_bridge(state)
    assert hops.resolved == {}


@pytest.mark.parametrize(("quote", "parents"), [
    ("Frederick Dickens was the son of John and Elizabeth Dickens and was a clerk.", ("John Dickens", "Elizabeth Dickens")),
    ("She was the daughter of King Nicholas I of Montenegro and Milena Vukov.", ("King Nicholas I of Montenegro",
                                                                                "Milena Vukov")),
    ("He was the son of Otto and his wife Ada.", ("Otto", "Ada")),
    ("She was the daughter of King Boris of Velm and his wife, Milena Vukov.", ("King Boris of Velm", "Milena Vukov")),
    ("He was born in Wolfratshausen to Ernest, Duke of Velm and Ada Visconti, daughter of Otto.",
     ("Ernest, Duke of Velm", "Ada Visconti")),
    ("She was born in 1900 to a poor family and moved to Paris.", None),
    ("He was a painter and a friend of the court.", None),
    # "and" ends the first parent: "the niece of ..." is another relation, not a parent
    ("She is the daughter of Gian Holm and the niece of Roman Holm and Sofia Holm.", None),
    # what a comma adds about a parent is not the parent's name
    ("She was the daughter of Carlos, Duke of Velm, claimant to the throne of Spain, and his wife Ada Visconti.",
     ("Carlos, Duke of Velm", "Ada Visconti")),
    ("He was the son of Francis Baring, 3rd Baron Velm (1800-1868), and Lady Ada Montagu.",
     ("Francis Baring, 3rd Baron Velm", "Lady Ada Montagu")),
    # the article of the mother's style
    ("She was a daughter of Johann Orr II of Velm (1628–1666) and the Countess Palatine Ada of Dorn (1640–1693).",
     ("Johann Orr II of Velm", "Countess Palatine Ada of Dorn")),
    # a style says who is the mother when she is named first
    ("She is the second daughter of Princess Ada, Duchess of Velm, and Tom Orr.", ("Tom Orr", "Princess Ada, Duchess of Velm")),
    # the mother after "by"
    ("Orr was the eldest son of Tam Orr, 2nd Baron Velm, by Ada Kell, daughter and heiress of Ivo Kell.",
     ("Tam Orr, 2nd Baron Velm", "Ada Kell")),
    ("Orr was the son of Admiral Tam Orr, 1st Baron Velm, by his first wife Lady Ada Kell, daughter of Ivo Kell.",
     ("Admiral Tam Orr, 1st Baron Velm", "Lady Ada Kell")),
])
def test_the_parents_of_a_biography_are_father_then_mother(quote: str, parents: tuple[str, str] | None) -> None:
    assert parents_named(quote) == parents


def test_a_grandmother_is_the_mother_in_the_parents_sentence() -> None:
    """"the daughter of King Boris Merrow and Milena Vukov": the hop asks for the mother, and the
    father stands nearer the relation word."""
    kit = _kit({**FILLER,
                "Lira Vane": "Lira Vane (1901 - 1986) was a princess, the daughter of Oskar Dal and his wife Elna Merrow.",
                "Elna Merrow": "Elna Merrow (1880 - 1950) was the daughter of King Boris Merrow and Milena Vukov."})
    result, _ = run_research("Who is Lira Vane's maternal grandmother?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Milena Vukov", result.report.answer


def test_a_grandfather_named_after_the_grandchild_answers_whole() -> None:
    """"Egbert II of Velm" shares most words with "Egbert III of Velm", the question's subject,
    yet stands in the father's place; "Ernest, Duke of Arno" is answered whole, not "Ernest"."""
    kit = _kit({**FILLER,
                "Egbert III of Velm": "Egbert III of Velm (1347 - 1391) was the son of Adolf of Velm and Maud Arno.",
                "Adolf of Velm": "Adolf of Velm (1310 - 1347) was the eldest son of Egbert II of Velm and Mecht Rane."})
    result, _ = run_research("Who is the paternal grandfather of Egbert III of Velm?", kit, out_dir=None,
                             sink=MemorySink())
    assert result.report.answer.text == "Egbert II of Velm", result.report.answer
    kit = _kit({**FILLER,
                "Lira Vane": "Lira Vane (1401 - 1434) was the daughter of Albert Vane and Maud Arno.",
                "Albert Vane": "Albert Vane (1380 - 1460) was born in Velm to Ernest, Duke of Arno and Ada Rane, "
                               "daughter of Otto Rane."})
    result, _ = run_research("Who is the paternal grandfather of Lira Vane?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Ernest, Duke of Arno", result.report.answer


@pytest.mark.parametrize(("quote", "name", "slot"), [
    ("Edsel Ford was the son of Henry Ford and president of Ford Motor Company.", "Henry Ford", "parent"),
    ("Edsel Ford was the son of Henry Ford and president of Ford Motor Company.", "Ford Motor Company", None),
    ("He was the son of John and Elizabeth Dickens.", "Elizabeth Dickens", "mother"),
    ("He was the son of John and Elizabeth Dickens.", "John Dickens", "father"),
])
def test_a_parent_is_placed_by_the_sentence_that_names_it(quote: str, name: str, slot: str | None) -> None:
    assert parent_slot(quote, name) == slot


@pytest.mark.parametrize(("text", "countries"), [
    ("Marian Hale is an American philosopher.", {"United States"}),
    ("John Ward was a U.S. Representative from Alabama.", {"United States"}),
    ("The museum in Hamar, Norway is a regional museum.", {"Norway"}),
    ("He was born in Indiana.", set()),  # "Indian" is no word of "Indiana"
    ("Michael Jordan played for Chicago.", set()),  # a country left to its adjective
    ("a Jordanian writer", {"Jordan"}),
    ("Buyende is a town in the Eastern Region of Uganda.", {"Uganda"}),
    ("She is a Somali-born writer.", {"Somalia"}),
    ("Antara Mali is an Indian actress.", {"India"}),  # a name that is also a country's is left to its adjective
    ("a Malian singer", {"Mali"}),
])
def test_countries_are_named_by_their_adjectives_and_other_names(text: str, countries: set[str]) -> None:
    assert countries_named(text) == countries


@pytest.mark.parametrize(("second", "expected"), [
    ("Tom Rell was a U.S. Representative from Alabama.", ("answered", "yes")),
    ("Tom Rell was a Canadian army officer.", ("answered", "no")),
    ("Tom Rell was an army officer and businessman.", ("not_found", None)),
])
def test_the_same_country_is_compared_by_country_not_by_shared_words(second: str, expected: tuple) -> None:
    """"American" and "U.S." are one country; a side that names no country leaves it open."""
    kit = _kit({**FILLER, "Mara Hale": "Mara Hale is an American philosopher and linguist.", "Tom Rell": second})
    answer = run_research("Did Mara Hale and Tom Rell share the same nationality?", kit, out_dir=None,
                          sink=MemorySink())[0].report.answer
    assert (answer.status, answer.text) == expected, answer


@pytest.mark.parametrize(("quote", "names", "named"), [
    ("Three other adaptions exist, including earlier 1914 and 1916 versions.", ["4", "minute mile"], False),
    ("The 4 Minute Mile premiered in 2014.", ["4"], True),
    ("He then went into exile, where he died.", ["king victor emmanuel iii of italy"], True),  # by its title
    # a one-word name is named where it is written as a name, with a capital
    ("She sang in Caracas, a privilege granted to few artists.", ["privilege"], False),
    ("Privilege is the first album of the band.", ["privilege"], True),
    ("The band recorded Privilege in 1983.", ["privilege"], True),
])
def test_a_card_names_an_entity_by_word_or_by_its_own_title(quote: str, names: list[str], named: bool) -> None:
    page = card("c1", quote).model_copy(update={"title": "Victor Emmanuel III of Italy"})
    assert names_entity(page, names) is named


@pytest.mark.parametrize(("second", "expected"), [
    ("Tom Rell was an American philosopher and teacher.", "yes"),
    ("Tom Rell was a Hungarian and Austrian philosopher.", "no"),
])
def test_both_of_a_nationality_is_asked_of_the_options_not_compared_with_them(second: str, expected: str) -> None:
    """"Are A and B both American philosophers?": "American" is what is asked, not a third option."""
    kit = _kit({**FILLER, "Mara Hale": "Mara Hale is an American philosopher and linguist.", "Tom Rell": second})
    result, _ = run_research("Are Mara Hale and Tom Rell both American philosophers?", kit, out_dir=None,
                             sink=MemorySink())
    assert [a.title for a in result.plan.axes] == ["Mara Hale", "Tom Rell"]
    assert (result.report.answer.kind, result.report.answer.text) == ("yes_no", expected), result.report.answer


def test_a_marriage_states_a_spouse() -> None:
    kit = _kit({**FILLER,
                "Glass Harbour": "Glass Harbour is a 1927 silent film directed by Constantin Dale.",
                "Constantin Dale": "Constantin Dale (18 February 1886 - 19 February 1964) was a German film director. "
                                   "He is also known for his marriage to the Hungarian actress Kathe Nagy."})
    result, _ = run_research("Who is the spouse of the director of film Glass Harbour?", kit, out_dir=None,
                             sink=MemorySink())
    assert result.report.answer.text == "Kathe Nagy", result.report.answer


@pytest.mark.parametrize(("text", "spans"), [
    ("born in St. Louis, Missouri", ["St. Louis", "Missouri"]),
    ("the slopes of Mt. Hood in Oregon", ["Mt. Hood", "Oregon"]),
    ("Robert G. Vignola was a director.", ["Robert G. Vignola"]),
    ("He moved to Paris. Marta stayed.", ["Paris", "Marta"]),  # a full stop after a name still ends it
])
def test_a_name_goes_on_after_a_short_title(text: str, spans: list[str]) -> None:
    assert entity_spans(text) == spans


def test_a_town_named_with_an_abbreviation_is_answered_whole() -> None:
    kit = _kit({**FILLER, "Cole Barry": "Cole Barry (born 1926) is a songwriter. He was born in St. Louis, Missouri."})
    answer = run_research("Where was Cole Barry born?", kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == "St. Louis, Missouri", answer


def test_a_nationality_is_answered_by_a_country_word() -> None:
    """"Tory" and "Welbeck Abbey" stand nearer the question's words; neither is a nationality."""
    kit = _kit({**FILLER, "Tom Rell": "Tom Rell (1780 - 1840) was a Tory politician of Welbeck Abbey and an "
                                      "Irish landowner."})
    answer = run_research("What nationality is Tom Rell?", kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == "Irish", answer


@pytest.mark.parametrize(("question", "expected"), [
    ("What country was Tom Rell a citizen of?", "Norway"),  # a country asked by name
    ("What nationality is Tom Rell?", "Norwegian"),  # the nationality word itself
])
def test_a_country_asked_by_name_is_answered_with_its_name(question: str, expected: str) -> None:
    kit = _kit({**FILLER, "Tom Rell": "Tom Rell (1780 - 1840) was a Norwegian playwright and citizen of note."})
    answer = run_research(question, kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert answer.text == expected, answer


@pytest.mark.parametrize(("question", "bases", "attribute"), [
    ("Are the directors of films Gull Point and Tern Bay both from the same country?", ["Gull Point", "Tern Bay"],
     "country"),
    ("Do director of film Count Five And Die and director of film The Green Jacket share the same nationality?",
     ["Count Five And Die", "The Green Jacket"], "nationality"),
    ("Do both films The Cow And I and War Book have the directors from the same country?",
     ["The Cow And I", "War Book"], "country"),
    ("Do both Possession (1922 Film) and La Boum films have the directors from the same country?",
     ["Possession (1922 Film)", "La Boum"], "country"),
])
def test_two_works_compared_through_a_relation_are_two_chains(question: str, bases: list[str], attribute: str) -> None:
    from citeloop.runtime.relations import relation_path

    path = relation_path(question)
    assert path is not None and (path.bases, path.relations, path.attribute) == (bases, ["director"], attribute)


def test_people_compared_directly_are_no_chain() -> None:
    """"both film directors" asks it of the people named: no relation of a work."""
    from citeloop.runtime.relations import relation_path

    assert relation_path("Are Christopher Nolan and Sathish Kalathil both film directors?") is None


def test_the_directors_of_two_films_are_compared_by_their_own_country() -> None:
    """Both films are British; their directors are not from the same country: the answer
    comes from the directors' articles, not from the films'."""
    kit = _kit({**FILLER,
                "Gull Point": "Gull Point is a 1950 British drama film directed by Arko Sen.",
                "Tern Bay": "Tern Bay is a 1952 British comedy film directed by Ada Klee.",
                "Arko Sen": "Arko Sen (1901 - 1980) was an Indian film director.",
                "Ada Klee": "Ada Klee (1910 - 1990) was a German film director."})
    result, _ = run_research("Are the directors of films Gull Point and Tern Bay both from the same country?", kit,
                             out_dir=None, sink=MemorySink())
    assert [sq.search_query for sq in result.plan.sub_questions] == [
        "Gull Point director", "{sq1} country", "Tern Bay director", "{sq3} country"]
    assert result.report.answer.text == "no", result.report.answer


def test_a_birth_date_is_no_sentence_about_a_father() -> None:
    """"(born 15 November 1955)" names no parent: the father hop's claim is the sentence that
    says "her father"."""
    answer = _answer_over("Who is the father of the director of film Blue Lantern?", {
        "Ilka Vend": "Ilka Vend (born 15 November 1955) is a Hungarian film director and screenwriter. "
                     "She has directed eight films since 1989. Her father, Gyorgy Vend, was a geographer and economist.",
        "Blue Lantern": "Blue Lantern is a 1994 Hungarian fantasy film written and directed by Ilka Vend."})
    assert answer.text == "Gyorgy Vend"


@pytest.mark.parametrize(("question", "bases", "relations"), [
    ("Who is the spouse of the director of Jump for Glory?", ["Jump for Glory"], ["director", "spouse"]),
    ("Where was the place of death of the director of film Rose in Bloom?", ["Rose in Bloom"], ["director"]),
    ("Who is the father of the director of film Magic Hunter?", ["Magic Hunter"], ["director", "father"]),
])
def test_a_short_lower_case_word_inside_a_title_keeps_the_title_whole(
        question: str, bases: list[str], relations: list[str]) -> None:
    from citeloop.runtime.relations import relation_path

    path = relation_path(question)
    assert path is not None and (path.bases, path.relations) == (bases, relations)


def test_a_hop_is_not_about_the_pieces_of_a_longer_name() -> None:
    """"Jump for Glory director": a card about a motorcycle jump is not on the hop's topic."""
    from citeloop.runtime.subq_state import hop_entities

    assert hop_entities(["Jump for Glory", "Jump", "Glory"], "Jump for Glory director") == ["Jump for Glory"]
    assert hop_entities(["Amy (2015 Film)", "Amy", "2015", "Film"], "Amy (2015 Film) director") == \
        ["Amy (2015 Film)", "Amy"]


def test_a_year_or_a_nationality_is_a_hops_topic_only_when_it_names_nothing_else() -> None:
    """"Which singer is American, Mark King or Nick Hexum?": every American's page names
    "American"; the hop about Mark King is about Mark King."""
    from citeloop.runtime.subq_state import hop_entities

    assert hop_entities(["Mark King", "Nick Hexum", "American"], "Mark King American singer") == ["Mark King"]
    assert hop_entities(["Drivers' Championship", "1999"], "1999 Drivers' Championship runner-up") == \
        ["Drivers' Championship"]
    assert hop_entities(["1999"], "1999 runner-up") == ["1999"]


def test_a_page_found_for_the_other_parent_confirms_no_father() -> None:
    """"the son of John and Elizabeth Velm": the corpus has Elizabeth's page and not John's;
    finding her page does not make her the father, nor is the father the bare "John"."""
    answer = _answer_over("Who is Frederick Velm's father?", {
        "Frederick Velm": "Frederick Velm (4 July 1820 – 20 October 1868) was the son of John and Elizabeth Velm "
                          "and was a clerk in London.",
        "Elizabeth Velm": "Elizabeth Velm (21 December 1789 – 13 September 1863) was the wife of John Velm and the "
                          "mother of the clerk Frederick Velm."})
    assert answer.text == "John Velm"


def _answer_over(question: str, pages: dict[str, str]):
    """The short answer of researching `question` over `pages` and one unrelated page."""
    granite = {"Granite": "Granite is a coarse-grained igneous rock. It is composed mostly of quartz and feldspar."}
    return run_research(question, _kit({**pages, **granite}), out_dir=None, sink=MemorySink())[0].report.answer


@pytest.mark.parametrize(("question", "bases", "relations"), [
    ("Who is the spouse of Big Eye's main director?", ["Big Eye"], ["director", "spouse"]),
    ("Who is the father of Ola Brenn's husband?", ["Ola Brenn"], ["husband", "father"]),
    ("Who is Big Eye's main director?", ["Big Eye"], ["director"]),
    ("Where was Ola Brenn's late husband born?", ["Ola Brenn"], ["husband"]),
])
def test_a_possessive_inside_an_of_is_the_inner_relation(question: str, bases: list[str], relations: list[str]) -> None:
    """"the spouse of X's director" is "the spouse of the director of X": the possessive's
    relation comes first, and a word such as "main" between the owner and it changes no hop."""
    from citeloop.runtime.relations import relation_path

    path = relation_path(question)
    assert path is not None and (path.bases, path.relations) == (bases, relations)


def test_a_clause_after_the_name_s_comma_describes_the_answer() -> None:
    """"Name the mother of X, who was the daughter of Y?": the clause says who the mother is; the
    hop after the mother reads her own article, it asks nothing more of her."""
    from citeloop.runtime.relations import relation_path

    path = relation_path("Name the mother of Orm Talbrook, 4th Baron Kessa, who was the daughter of the "
                         "nobleman Wendel Arro, 3rd Earl of Vessac?")
    assert path is not None and (path.bases, path.relations, path.attribute) == \
        (["Orm Talbrook, 4th Baron Kessa"], ["mother"], "")
    # without the comma the words still ask something of the father
    path = relation_path("Where was the father of Ola Brenn who died in 1900 born?")
    assert path is not None and path.attribute == "died born"


@pytest.mark.parametrize(("question", "bases", "relations", "attribute"), [
    ("What kind of plane dropped the bomb on Ola Brenn's birthplace?", ["Ola Brenn"], ["birthplace"],
     "kind plane dropped bomb"),
    ("Of what church is the Diocese of the birthplace of Ada Klee?", ["Ada Klee"], ["birthplace"], "church diocese"),
])
def test_a_birthplace_is_a_hop_to_a_place(question: str, bases: list[str], relations: list[str],
                                          attribute: str) -> None:
    """"X's birthplace" leads to a place the next hop asks about; the lower-case words before a
    possessive ("on") are the outer question's, not the owner's name."""
    from citeloop.runtime.relations import relation_path

    path = relation_path(question)
    assert path is not None and (path.bases, path.relations, path.attribute) == (bases, relations, attribute)


def test_the_hops_most_relevant_sentence_naming_the_leader_confirms_it() -> None:
    """A runner-up's article read by the same search ("Somalia") does not make it the bridge when
    the hop's most relevant sentence names the leader ("Djibouti ... its first president")."""
    runner_up = card("c1", "Otto was a count who held Burg Grebenstein.", doc_id="d1", subq="sq2")
    runner_up = runner_up.model_copy(update={"title": "Otto", "grade": runner_up.grade.model_copy(update={"relevance": 0.5})})
    leader = card("c2", "Louis the Junker ruled Hesse until his death in 1336.", doc_id="d2", subq="sq2")
    leader = leader.model_copy(update={"title": "Landgraves of Hesse"})  # relevance 0.9
    state = SubQuestionState(sq=SubQuestion(id="sq2", axis="a2", question="When did he die?", search_query="{sq1} die",
                                            stop_condition="one source", depends_on=["sq1"]),
                             status="searching", query="q", entities=["Louis the Junker", "Otto"])
    hops = _Hops([runner_up, leader])
    hops._confirm_bridge(state)
    assert hops.resolved == {"sq1": "Louis the Junker"}
    weak = leader.model_copy(update={"grade": leader.grade.model_copy(update={"relevance": 0.3})})
    hops = _Hops([runner_up, weak])  # the runner-up's own article, more relevant, still decides
    hops._confirm_bridge(state)
    assert hops.resolved == {"sq1": "Otto"}


@pytest.mark.parametrize(("opening", "sentence", "other"), [
    # his page ("a son of"): "She was the daughter of ..." names his wife's parents
    ('Tam Orr, "The Elder", Duke of Velm. (1458 – 1521) was a son of Ivo Orr and Ada Kell.',
     "She was the daughter of Piet Dane and his wife Lena Ross.", True),
    ("Tam Orr (1458 – 1521) was a son of Ivo Orr and Ada Kell.", "He married Mira Dane in 1490.", False),
    ("Mira Dane (1470 – 1530) was a daughter of Piet Dane.", "He was the son of Ivo Orr.", True),
    ("Velm is a town on the river.", "She was born there.", False),  # no subject's sex to go by
    # "his mother" is someone else's sex; the page's "He" is its subject's
    ("Tam Orr was born to his mother Ada in Velm. He ruled Velm.", "He married Mira Dane.", False),
])
def test_a_pronoun_of_the_other_sex_than_the_pages_subject_is_about_another_person(
        opening: str, sentence: str, other: bool) -> None:
    from citeloop.runtime.parentage import about_another_person
    assert about_another_person(opening, sentence) is other
