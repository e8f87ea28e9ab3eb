from citeloop.runtime.text import STOPWORDS, content_terms, entity_spans, fold_accents, term_overlap, tokenize


def test_stopwords_cover_question_words_and_auxiliaries():
    for word in ["what", "who", "which", "where", "when", "how", "whose", "is", "was", "did", "the"]:
        assert word in STOPWORDS
    assert "nolan" not in STOPWORDS


def test_tokenize_lowercases_and_normalises_full_width():
    assert tokenize("Ｎｏｌａｎ directed １２３ films") == ["nolan", "directed", "123", "films"]


def test_tokenize_keeps_internal_apostrophes_and_hyphens():
    assert tokenize("Nolan’s well-known film isn't bad.") == ["nolan's", "well-known", "film", "isn't", "bad"]


def test_tokenize_splits_cjk_into_characters():
    assert tokenize("北京 Beijing") == ["北", "京", "beijing"]


def test_content_terms_drop_stopwords_stem_and_dedupe():
    terms = content_terms("Who directed the films? The directors directs films.")
    assert terms == ["direct", "film", "director"]  # "directed" and "directs" stem alike


def test_content_terms_split_hyphens_and_skip_numbers():
    assert content_terms("A well-known film from 1,986") == content_terms("a well known film")


def test_term_overlap_is_share_of_first_argument():
    assert term_overlap(["a", "b", "c", "d"], ["b", "d", "z"]) == 0.5
    assert term_overlap([], ["a"]) == 0.0


def test_entity_spans_question_with_place_and_year():
    spans = entity_spans("Who directed the film that was shot in or around Leland, North Carolina in 1986?")
    assert spans == ["Leland", "North Carolina", "1986"]


def test_entity_spans_split_names_on_and():
    spans = entity_spans("Are Christopher Nolan and Sathish Kalathil both film directors?")
    assert spans == ["Christopher Nolan", "Sathish Kalathil"]


def test_entity_spans_connectors_and_quoted_titles():
    spans = entity_spans("In 2008 the Bank of America funded \"The Dark Knight\" and 'Memento'.")
    assert spans == ["2008", "Bank of America", "The Dark Knight", "Memento"]
    assert "In" not in spans


def test_entity_spans_strip_trailing_connector_and_possessive():
    assert entity_spans("We met Ludwig van Beethoven's friend from Paris of") == [
        "Ludwig van Beethoven", "Paris"]


def test_entity_spans_quoted_speech_is_not_a_name():
    # A page's quoted sentence must not become a next-hop search query; its names still count.
    spans = entity_spans('"No account of Haymo of Faversham is complete without the field notes of the Acme '
                         'expedition," the historian Margaret Ellison wrote.')
    assert spans == ["Haymo of Faversham", "Acme", "Margaret Ellison"]
    assert entity_spans('He listed "MD, D.Ph., D.Litt., etc." after his name.') == ["MD, D.Ph., D.Litt., etc."]
    assert entity_spans('He wrote "Where Do I Begin?" in 1970.') == ["Where Do I Begin?", "1970"]


def test_entity_spans_lower_case_quoted_phrase_is_not_a_title():
    # An alias a page plants in quotes ('the Acme model of X') is not a name to search for.
    assert entity_spans("In short versions it is called 'the Acme model of Damerjog' by editors.") == [
        "Acme", "Damerjog"]
    long_title = "In Love and War: The Story of a Family's Ordeal and Sacrifice During the Vietnam Years"
    assert entity_spans(f'It adapts the book "{long_title}" (1984).') == [long_title, "1984"]


def test_entity_spans_chinese_quotation_is_not_a_title():
    text = "学者在《Acme评论》中写道：“理解Jean-Luc Vandenbroucke，必须先理解它与Acme学派的渊源。”"
    spans = entity_spans(text)
    assert "Vandenbroucke" in spans and not any("必须" in s for s in spans)
    assert entity_spans("评审委员会称其为“同类中最具代表性的例子”。") == []


def test_numbers_in_any_digits_are_not_terms_but_words_after_them_are() -> None:
    # Arabic-Indic digits are decimal digits (`\d`), as 12,5 is; "3rd" keeps its word part.
    assert tokenize("٣٤ apples 12,5 3rd") == ["٣٤", "apples", "12,5", "3", "rd"]
    assert content_terms("٣٤ apples 12,5 3rd") == ["appl", "rd"]


def test_entity_spans_sentence_opening_adverb_is_not_a_name():
    # "Currently" opened a sentence and became a report's answer; names ending in "ly" stay.
    assert entity_spans("Currently a solo artist, he founded the band Porcupine Vale.") == ["Porcupine Vale"]
    assert entity_spans("Subsequently, Beverly Hills grew. Originally, Kelly Donnelly sang.") == [
        "Beverly Hills", "Kelly Donnelly"]
    assert entity_spans("Italy is a country. Emily sang.") == ["Italy", "Emily"]
    # only at a sentence's start: inside a sentence a capitalised word is a name's
    assert entity_spans("The ship Gracefully sank.") == ["Gracefully"]


def test_entity_spans_sentence_opening_preposition_is_not_a_name():
    assert entity_spans("Unlike U.S. states, the Lakota live here.") == ["U.S", "Lakota"]
    assert entity_spans("Following the war, Despite Records closed.") == ["Despite Records"]
    assert entity_spans("Alongside her husband, Ada Wren wrote.") == ["Ada Wren"]
    assert entity_spans("Near East is a region. Inside Out is a film.") == ["Near East", "Inside Out"]


def test_entity_spans_sentence_opening_linking_adverb_is_not_a_name():
    assert entity_spans("However, Strauss died in 1899. Meanwhile Bayer finished it.") == [
        "Strauss", "1899", "Bayer"]


def test_a_name_written_with_a_space_after_its_hyphen_meets_the_name_without_it():
    # some exports write "Saxe- Weissenfels" in the text of a page titled "Saxe-Weissenfels"
    assert fold_accents("Augustus of Saxe- Weissenfels") == "Augustus of Saxe-Weissenfels"
    assert fold_accents("pre- and post-war") == "pre- and post-war"  # a hyphen before a word is kept
    assert fold_accents("Hanau- Lichtenbérg") == "Hanau-Lichtenberg"


def test_content_terms_fold_accents_as_the_index_does():
    # a user types "Aschenbrodel": the hit titled "Aschenbrödel" must count as relevant to it
    assert content_terms("Aschenbrödel ballet") == content_terms("Aschenbrodel ballet")
    assert term_overlap(content_terms("Aschenbrodel composer"), content_terms("Aschenbrödel is a ballet")) == 0.5
