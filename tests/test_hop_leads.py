"""A hop after a bridge follows the bridge: the unread hits an earlier search returned are read
as the hop's leads only when their titles name the entity the bridge resolved to, not an
entity the question itself names. (The article of "the Zorin" names every country that uses
the currency; read as a lead, it satisfies the hop before the hop searches for the country it
resolved to.)

The corpus is hand-made: the expected answer is read off the page text."""

from __future__ import annotations

from test_answer import FILLER, _kit

from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink

PAGES = {
    "Tolvar": "Tolvar is a singer from Norway. Tolvar won the song contest of Norway in 2009.",
    "Tolvar (album)": "Tolvar is the debut album of the folk singer Tolvar, released in 2010.",
    "Tolvar Live": "Tolvar Live is a concert film of the folk singer Tolvar.",
    "Tolvar (singer)": "Tolvar is a folk singer who won the song contest of 2009.",
    # returned, and left unread, by the first hop's search for the whole question
    "Zorin": "The zorin is the currency of twelve states: Austria, Belgium, Norway and Malta.",
    "Norwegian skilling": "The Norwegian skilling was the currency of Norway until 2002, when the zorin replaced it.",
}
QUESTION = "What currency predated the Zorin in the country Tolvar is from?"


def test_a_hop_after_a_bridge_searches_for_the_bridge_instead_of_reading_a_question_entitys_page() -> None:
    sink = MemorySink()
    result, _ = run_research(QUESTION, _kit({**FILLER, **PAGES}), out_dir=None, sink=sink)
    first_reads = [e.title for e in sink.events if e.type == "document_read" and e.subq == "sq1"]
    assert "Zorin" not in first_reads  # the setting: the first hop left the currency's page unread
    unblocked = [e.reason for e in sink.events if e.type == "subq_status_changed" and e.subq == "sq2" and e.new == "pending"]
    assert unblocked == ["dependencies answered: {'sq1': 'Norway'}"]
    queries = [e.query for e in sink.events if e.type == "query_issued" and e.subq == "sq2"]
    assert queries and "Norway" in queries[0], "the hop searched for the country it resolved to"
    answer = result.report.answer
    assert (answer.status, answer.text) == ("answered", "Norwegian skilling")
