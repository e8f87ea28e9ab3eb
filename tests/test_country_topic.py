"""The country a hop asked for is the next hop's topic. A country's name is on every other page,
so a hop's topic leaves country words out when it names anything else; but when the hop before
it asked for a country ("the country where the village of Pelmar is located"), that country is
what the next hop is about: its row in a members' table dates its joining, not the first row's.

The corpus is hand-made: the expected date is read off the page text."""

from __future__ import annotations

from test_answer import _answer

PAGES = {
    "Pelmar": "Pelmar is a village in the Demerara region of Guyana. It lies on the coast road.",
    "Dorncom": "Dorncom Members Status Name Join date Full member Barbados 1 August 1973 Belize 1 May 1974 "
               "Guyana 3 March 1975 Haiti 2 July 2002 Jamaica 1 August 1973.",
    "Dorncom Secretariat": "The Dorncom Secretariat opened on 25 February 1998 in a new building.",
}


def test_the_country_found_is_the_topic_of_the_next_hop() -> None:
    answer = _answer("When did the country where the village of Pelmar is located become a member of Dorncom?",
                     PAGES)
    assert answer.text == "3 March 1975"
