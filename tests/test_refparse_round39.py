"""Round 39 (issue 22): a list whose first name is printed family first and whose last name, after "and",
initials first ("Okafor, B.T. and M. Lindqvist, Title ..."). The labeller reads the names; the rule that ends a
family-first list at its last initials (fields.authors_end_at_initials, written for "Le, Q. V. Xlnet: ...") must
not move the last family name into the title. Strings written for this test."""

import pytest

from ctxmill.compile.refparse import fields, parse

AFTER_AND = [
    ("Okafor, B.T. and M. Lindqvist, Thermal drift in quartz resonators at low pressure. "
     "Sens Actuators A, 2011. 52(3): p. 101-9.",
     "Thermal drift in quartz resonators at low pressure", ["Okafor", "Lindqvist"]),
    ("Haldane, R. and P. Okonkwo, Seasonal variation of soil respiration under mixed canopies, "
     "Plant Ecol. 88 (2004), 17-29.",
     "Seasonal variation of soil respiration under mixed canopies", ["Haldane", "Okonkwo"]),
    ("Brennan, T. & K. Ishida, A survey of lock-free queues for embedded systems, Softw. Pract. Exp. 40 (2010) 301-320.",
     "A survey of lock-free queues for embedded systems", ["Brennan", "Ishida"]),
]


@pytest.mark.parametrize(("raw", "title", "families"), AFTER_AND)
def test_last_name_after_and_stays_a_person(raw, title, families):
    f = parse(raw)
    assert f["title"] == title
    assert [p.get("family") for p in f["people"]] == families


def test_the_rule_still_ends_a_family_first_list_at_its_initials():
    # "Family, I. I. Title": no "and" before the last initials, the capitalised word after them opens the title
    f = parse("Moreau, P. T. Graphlets: counting small subgraphs at scale. 2020.")
    assert f["title"] == "Graphlets: counting small subgraphs at scale"
    assert [p.get("family") for p in f["people"]] == ["Moreau"]


def test_off_switch_gives_the_parse_before_it():
    raw, title, _ = AFTER_AND[0]
    fields.use_initials_after_and(False)
    try:
        assert parse(raw)["title"] != title  # the bug this round fixes: "Lindqvist, Thermal drift ..."
    finally:
        fields.use_initials_after_and(True)
    assert parse(raw)["title"] == title
