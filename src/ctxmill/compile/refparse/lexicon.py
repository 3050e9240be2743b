"""Small word lists the labeller uses as features (lower case, without the full stop).

They only hint: the model learns how much each hint is worth from the training data, so a
word missing here still gets labelled from its shape and its neighbours.
"""

import gzip
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre "
    "januar februar märz juni juli oktober dezember spring summer autumn fall winter".split()
)
# name particles: "van Baal", "de la Macorra", "von Neumann"
PARTICLES = frozenset("de del della der den van von da di du la le al bin ibn el dos das ter zu y 't ’t".split())
# words of journal names and their abbreviations (Phys. Rev. Lett., Astrophys. J., Proc. IEEE ...)
JOURNAL = frozenset(
    "journal j jour rev review reviews lett letters phys physical physics proc proceedings trans "
    "transactions ann annals annu acta bull bulletin mon not notices astron astrophys astrophysical "
    "chem chemical chemistry nucl mod int intl international commun comm communications math "
    "mathematical sci science sciences res research appl applied biol biology med medicine natl nat "
    "nature soc society conf conference symp symposium workshop quart quarterly magazine mag ieee "
    "acm siam lncs arxiv preprint jcap jhep apj apjs apjl mnras aj pasp pnas prl prd prb jinst epl "
    "eur theor theory comput computing computer engineering eng stat statist statistical econ "
    "economic economics geophys environ lett. advances adv adv. studies systems syst letters".split()
)
PUBLISHER = frozenset(
    "press university univ publishers publishing publisher verlag springer wiley elsevier "
    "academic cambridge oxford mit mcgraw-hill pearson routledge sage taylor francis kluwer "
    "birkhäuser addison-wesley prentice reilly o'reilly dover crc inc ltd llc gmbh co corp "
    "institute institut laboratory lab department dept school college foundation society "
    "association editions éditions world scientific ams aip iop nasa cern".split()
)
# words before or around the fields they introduce
MARKERS = {
    "in": "in", "pp": "pages", "p": "pages", "pages": "pages", "page": "pages", "vol": "volume",
    "volume": "volume", "no": "issue", "nr": "issue", "issue": "issue", "num": "issue",
    "ed": "editor", "eds": "editor", "editor": "editor", "editors": "editor", "edited": "editor",
    "hrsg": "editor", "edn": "edition", "edition": "edition", "ed.": "edition",
    "doi": "doi", "arxiv": "arxiv", "isbn": "isbn", "url": "url", "available": "url",
    "retrieved": "url", "accessed": "note", "thesis": "note", "dissertation": "note",
    "phd": "note", "report": "note", "technical": "note", "preprint": "note", "submitted": "note",
    "press.": "publisher", "et": "etal", "al": "etal", "and": "and", "&": "and",
    "collaboration": "collab", "consortium": "collab", "team": "collab", "group": "collab",
}
# words printed abbreviated with a full stop that does not end the field: journal words,
# markers, titles of persons, months
ABBREVIATIONS = frozenset(
    "phys rev lett proc trans ann annu astron astrophys chem nucl mod int intl commun comm math sci res "
    "appl biol med natl nat soc conf symp quart mag bull mon not j jour theor comput eng stat statist "
    "econ geophys environ adv acad am amer assoc inst lab univ dept rep tech techn natl electron "
    "mech opt optic struct mater syst inf inform sect ser vol vols no nos nr pp p ed eds edn al et etc "
    "inc ltd co corp jr sr st dr mr ms mrs prof eq eqs ch chap sec fig vs cf ca repr trad transl "
    "jan feb mar apr jun jul aug sep sept oct nov dec diss hrsg aufl bd hg publ th ch".split()
)


# --- Gazetteers built from GROBID's lexicons (scripts/train_refparse.py --lexicons) -------------
# Journal and proceedings names (full and abbreviated) and common given and family names, as
# written to src/ctxmill/data/refparse_lexicon.txt.gz: a section per kind ("kind\\nkey\\nkey...",
# sections apart by a form feed), each key the ``lexkey`` words of a name joined by a space. Knowing that "Nuovo Cimento B" or "Rom. Rep. Phys." is a
# journal is what tells the title from the venue in styles that print neither quotes nor "In".


def lexkey(word: str) -> str:
    """A word as the gazetteers store it: lower case, without the full stop of an abbreviation."""
    return word.lower().rstrip(".")


def gazetteer_path():
    return resources.files("ctxmill") / "data" / "refparse_lexicon.txt.gz"


class Gazetteers(NamedTuple):
    journal: frozenset[str]        # names: lexkey words joined by one space
    # first word of a name -> the lengths in words of the names it starts, longest first, one
    # hex digit each ("c31": 12, 3 and 1 words): the longest match from a word is tried at those
    # lengths only (one or two, not up to twelve); kept as the file's text, as parsing ten
    # thousand rows at load costs more than a short bibliography's matching
    journal_first: dict[str, str]
    given: frozenset[str]
    family: frozenset[str]
    # From the training labels (scripts/train_refparse.py): venue names printed in two or more
    # training strings, and words printed abbreviated ("Rom.", "Contemp.") that stand in
    # venue names far more often than in titles. Physics and chemistry abbreviations are
    # thin in GROBID's journal lists ("Phys. Rev. B", "Gen. Relat. Gravit." are not there).
    # The clean-up rules read them, not the model's features.
    venue_name: frozenset[str] = frozenset()
    venue_abbrev: frozenset[str] = frozenset()
    # From the training labels too: for a word printed often enough in the training strings,
    # which kind of field holds it most and how often ("lx=T3": nine times in ten a title word),
    # a feature of the model (features.token_features) where the file has them: written only
    # by scripts/train_refparse.py --word-labels, tried and not shipped (docs/outputs.md).
    word_label: dict[str, str] = {}
    # Word classes learned from unlabelled reference strings (scripts/train_refparse.py
    # --clusters): for a word printed often enough, its cluster at each granularity, as the
    # features the model reads ("cluster32=5", "cluster128=77"): words that stand between the
    # same neighbours ("Phys." and "Astrophys.", "Proc." and "Conf.") share a class, so a venue
    # word the labelled strings never held gets the weights of its class. Only where the file
    # has them (the shipped gazetteers have none unless a model trained with them ships).
    cluster: dict[str, tuple[str, ...]] = {}


@lru_cache(maxsize=1)
def gazetteers() -> Gazetteers:
    """The gazetteers shipped with the model; empty where the file is absent."""
    kinds: dict[str, frozenset[str]] = dict.fromkeys(
        ("journal", "journal_first", "given", "family", "venue_name", "venue_abbrev", "word_label", "cluster"),
        frozenset())
    try:
        data = gzip.decompress(gazetteer_path().read_bytes()).decode("utf-8")
    except FileNotFoundError:
        data = ""
    for section in filter(None, data.split("\f")):  # "kind\nkey\nkey..." per kind: one split, one set
        kind, _, keys = section.partition("\n")
        kinds[kind] = frozenset(keys.split("\n"))
    first = {}
    for row in kinds["journal_first"]:  # "word\tc31": the lengths, longest first
        w, _, n = row.partition("\t")
        first[w] = n
    return Gazetteers(kinds["journal"], first, kinds["given"], kinds["family"], kinds["venue_name"],
                      kinds["venue_abbrev"], dict(row.split("\t", 1) for row in kinds["word_label"]),
                      {w: tuple(f) for w, *f in (row.split("\t") for row in kinds["cluster"])})
