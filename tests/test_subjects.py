"""What a sentence is about, and the reverse check that only counts sentences about the same
subject as counter-evidence (`citeloop.runtime.subjects`)."""

import pytest

from citeloop.runtime.subjects import page_subject, same_subject, sentence_subject, subject_of
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier


@pytest.mark.parametrize(("sentence", "subject"), [
    ("Humphrey Napier Sturt, 2nd Baron Alington (20 August 1859 – 30 July 1919) was a peer.", "Humphrey Napier Sturt"),
    ("The Heinkel HD 40 was a cargo aircraft.", "Heinkel HD 40"),
    ("La Boum( English title: The Party) is a 1980 film.", "La Boum"),
    ("It was entered in the 1984 Cannes Film Festival.", None),
    ("In 1381 she married Engelbert III of the Mark.", None),
    ("As of the 2010 census, the city population was 27,340.", None),
    ("1422–1498), son of Eberhard of Limburg.", None),
])
def test_a_sentence_is_about_the_name_it_opens_with(sentence: str, subject: str | None) -> None:
    assert sentence_subject(sentence) == subject


def test_a_sentence_that_opens_with_a_pronoun_is_about_its_page() -> None:
    assert page_subject("Pyar Ka Karz (film)") == "Pyar Ka Karz"
    assert subject_of("It is a 1990 Hindi film.", "Pyar Ka Karz (film)") == "Pyar Ka Karz"
    assert subject_of("Pyar Ka Bandhan is a 1963 Hindi film.", "Pyar Ka Karz (film)") == "Pyar Ka Bandhan"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Oscar Wilde", "Oscar Fingal O'Flahertie Wills Wilde", True),
    ("La Boum", "La Boum 2", False),
    ("Henry Ford", "Henry Ford II", False),
    ("Prince Feodor Alexandrovich of Russia", "Prince Dmitri Alexandrovich of Russia", False),
    ("Roland Joffé", "Roland Joffe", True),
    (None, "La Boum", True),  # unknown: the check stays as strict as before
])
def test_subjects_are_the_same_when_one_name_holds_the_other_and_no_number_tells_them_apart(
        a: str | None, b: str | None, same: bool) -> None:
    assert same_subject(a, b) is same


CLAIM = "La Carapate is a 1978 French comedy film directed by Gérard Oury."
BOUND = [EvidenceText(card_id="c1", text=CLAIM, title="La Carapate")]


def test_another_film_by_the_same_director_is_no_counter_evidence() -> None:
    other = EvidenceText(card_id="c2", title="The Umbrella Coup",
                         text="The Umbrella Coup is a 1980 French comedy film directed by Gérard Oury.")
    record = LexicalVerifier().check("k1", CLAIM, BOUND, [other])
    assert (record.verdict, record.counter_card_ids) == ("entail", [])


def test_another_page_about_the_same_film_with_another_year_still_contradicts() -> None:
    other = EvidenceText(card_id="c2", title="Gérard Oury filmography",
                         text="La Carapate is a 1979 French comedy film directed by Gérard Oury.")
    record = LexicalVerifier().check("k1", CLAIM, BOUND, [other])
    assert (record.verdict, record.checker, record.counter_card_ids) == ("conflict", "reverse", ["c2"])


def test_a_pronoun_sentence_is_compared_by_its_page() -> None:
    claim = "It was entered into the 1966 Cannes Film Festival."
    bound = [EvidenceText(card_id="c1", text=claim, title="With the East Wind")]
    other_film = EvidenceText(card_id="c2", text="It was entered into the 1965 Cannes Film Festival.",
                              title="The First Day of Freedom")
    same_film = EvidenceText(card_id="c3", text="It was entered into the 1967 Cannes Film Festival.",
                             title="With the East Wind (film)")
    record = LexicalVerifier().check("k1", claim, bound, [other_film, same_film])
    assert record.counter_card_ids == ["c3"]


def test_the_ledger_pairwise_check_skips_another_subject() -> None:
    verifier = LexicalVerifier()
    other = EvidenceText(card_id="c2", title="Robin Hood of the Range",
                         text="Robin Hood of the Range is a 1943 American film directed by William Berke.")
    claim = "The Lone Prairie is a 1942 American film directed by William Berke."
    assert verifier.conflict(claim, other, "The Lone Prairie") is None
    same = EvidenceText(card_id="c3", title="William Berke",
                        text="The Lone Prairie is a 1944 American film directed by William Berke.")
    assert verifier.conflict(claim, same, "The Lone Prairie") is not None
