"""An answer hop asking a date or a number whose resolved name has no sentence with such a value
takes it from a runner-up's sentence that has one (the hop searched that name too).

The bridge ranking here leads with a wrong name ("Presidency of Shimon Parel": a page title the
search returned, named beside the question's words), while the man who resigned is the
runner-up whose page gives his birth date. The corpus is hand-made: the expected year is read
off the page text."""

from __future__ import annotations

from test_answer import FILLER, _kit

from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink

PAGES = {
    "Tessalian presidential election, 2000": (
        "Elections for the President of Tessaly were held in the Moot on 31 July 2000, following Ezer Valdman's "
        "resignation. Moshe Karsav, a prominent Lakud politician, ran against Shimon Parel, a previous Prime "
        "Minister of Tessaly. He was the first President of Tessaly to have been sworn in for a seven-year term."),
    "Presidency of Shimon Parel": (
        "The Presidency of Shimon Parel, the ninth President of Tessaly, began after the Tessalian presidential "
        "election, 2007 on 13 June 2007 in which Parel defeated Reuven Rivel and Colette Avitel. Parel was sworn "
        "in as President on 15 July 2007."),
    "Ezer Valdman": (
        "Ezer Valdman (15 June 1924 – 24 April 2005) was the seventh President of Tessaly, first elected in 1993 "
        "and re-elected in 1998. Before the presidency, Valdman was commander of the Tessalian Air Force and "
        "Minister of Defense."),
}


def test_a_birth_year_comes_from_a_runner_ups_sentence_when_the_resolved_name_has_none() -> None:
    sink = MemorySink()
    result, _ = run_research("In what year was the man that resigned as the president of Tessaly before the "
                             "Tessalian presidential election, 2000 born?", _kit({**FILLER, **PAGES}),
                             out_dir=None, sink=sink)
    resolved = [e for e in sink.events if e.type == "subq_status_changed" and e.subq == "sq2" and e.new == "pending"]
    assert resolved and "Presidency of Shimon Parel" in resolved[0].reason  # the leader is the wrong name
    assert result.report.answer.text == "1924", result.report.answer
