"""Split the author (or editor) field of a reference into people {family, given}.

Handles the orders bibliographies print names in: "Bahcall, J.N., Flynn, C." (family,
initials), "D. Diakonov, N. Gromov and V. Petrov" (given family), "Pérez-Higueras JJ, de la
Macorra JC" (Vancouver: family then bare initials), "Smith, John; Doe, Jane". "et al." is
reported as a flag, and a collaboration or organisation ("ATLAS Collaboration", "OpenAI")
is one ``{"literal": ...}`` entry, as CSL-JSON has it.
"""

from __future__ import annotations

import re

from ctxmill.compile.refparse.lexicon import PARTICLES

_ETAL = re.compile(r"(?:,\s*)?\b(?:et\.?\s*al\b\.?|and\s+others\b|u\.\s*a\.)", re.IGNORECASE)
_AND = re.compile(r"\s*(?:(?:,\s*|\s+)(?:and|und|et|y)\s+|,?\s*&\s*)", re.IGNORECASE)
_INITIALS = re.compile(r"^(?:[A-ZÀ-Þ](?:[a-z]?\.)?[-‐]?){1,4}$")  # "J.", "J.N.", "JJ", "J.-P.", "Th." (not "Li")
_ORG = re.compile(
    r"\b(?:collaboration|consortium|team|group|project|committee|council|association|society|"
    r"organi[sz]ation|institute|foundation|university|agency|inc|ltd|llc|corp|corporation|"
    r"company|office|department|survey|network|initiative|working)\b",
    re.IGNORECASE,
)
_INITIAL_DOT = re.compile(r"\b[A-Z]\.")
# "Funk S", "Atkins BD": a family name and undotted initials (Vancouver and JSS lists), one comma-separated part
_FAMILY_INITIALS = re.compile(r"(?:^|,)\s*[^\W\d_][\w'’\-]*\s+[A-Z]{1,3}\s*(?=,|$)")
_SUFFIX = re.compile(r"^(?:Jr|Sr|II|III|IV)\.?$")
_SPACES = re.compile(r"\s+")
_SPACED_DOT = re.compile(r"\s+\.(?=\w)")
# An abbreviated particle ("J. T. v. Mierlo", mnras' "Walt S. v. d."): a lowercase letter and a full stop
# whose letter begins a particle of the table, counted only right after an initial (so "Bartz v. Anthropic"
# stays no person).
_ABBR = re.compile(r"^[a-z]\.$")
_ABBR_LETTERS = frozenset(w[0] for w in PARTICLES if w[0].isalpha())
_EDS = re.compile(r"\(?\b(?:eds?|editors?|hrsg|coords?)\b\.?\)?|\b(?:edited\s+by|in)\b:?", re.IGNORECASE)


def _is_initials(part: str) -> bool:
    words = part.replace(".", ". ").split()
    return bool(words) and all(_INITIALS.match(w) or _abbr_particle(words, i) for i, w in enumerate(words))


def _family_given(fam: str, giv: str) -> dict:
    """A family name and the given names printed after it ("Walt, S. v. d." is van der Walt)."""
    fam, giv = _particles_to_family(fam, giv.split())
    return {"family": fam, "given": giv} if giv else {"family": fam}


def _particles_to_family(fam: str, given: list[str]) -> tuple[str, str]:
    """(family, given) of a family name printed before its given names: abbreviated particles that
    end the given names are the family name's ("Walt S. v. d." is "v. d. Walt"); one given word stays."""
    e = len(given)
    while e > 1 and _abbr_particle(given, e - 1):
        e -= 1
    return " ".join(given[e:] + [fam]), " ".join(given[:e])


def _abbr_particle(words: list[str], i: int) -> bool:
    """Whether words[i] is an abbreviated particle: "v." after initials ("J. T. v.", "S. v. d.")."""
    j = i
    while j > 0 and _ABBR.match(words[j]) and words[j][0] in _ABBR_LETTERS:
        j -= 1
        if _INITIALS.match(words[j]):
            return True
    return False


def _person(part: str) -> dict | None:
    """One name written on its own: "J. N. Bahcall", "Bahcall J.N.", "Bahcall JN", "Ashish Vaswani"."""
    words = [w for w in part.split() if w]
    if not words:
        return None
    suffix = ""
    if len(words) > 1 and _SUFFIX.match(words[-1]):
        suffix = words.pop()
    if len(words) == 1:
        return {"family": words[0]}
    # Family first with initials after it: "Bahcall J.N.", "Pérez-Higueras JJ", "de la Macorra JC"
    k = len(words)
    while k > 1 and (_INITIALS.match(words[k - 1]) or _abbr_particle(words, k - 1)):
        k -= 1
    if k < len(words) and not _INITIALS.match(words[0]) and not _ABBR.match(words[0]):
        fam, giv = _particles_to_family(" ".join(words[:k]), words[k:])
    else:
        # Given names first: the family name starts at its particle ("Peter van Baal", "J. T. v. Mierlo")
        # or is the last word ("Ashish Vaswani", "J. N. Bahcall").
        j = len(words) - 1
        while j > 1 and (words[j - 1].lower() in PARTICLES or _abbr_particle(words, j - 1)):
            j -= 1
        fam, giv = " ".join(words[j:]), " ".join(words[:j])
    if suffix:
        fam = f"{fam} {suffix}"
    return {"family": fam, "given": giv} if giv else {"family": fam}


def split_people(field: str) -> tuple[list[dict], bool]:
    """(people, et_al) from one author or editor field."""
    # OCR spacing: "M .Wagner" -> "M. Wagner"
    text = _SPACED_DOT.sub(". ", _SPACES.sub(" ", field)).strip()
    text, found = _ETAL.subn("", text)  # (one pass: whether "et al." was there and the text without it)
    etal = found > 0
    text = _EDS.sub(" ", text)
    text = text.strip(" ,;:()[]")
    if text.endswith(".") and not _INITIALS.match(text.split()[-1].split(",")[-1] or "x"):
        text = text[:-1]  # the full stop that ends the field, not an initial's
    if not text:
        return [], etal
    org = _ORG.search(text) is not None  # once: no part can name an organisation where the whole does not
    # (an organisation among people written "Funk S, Abbott S, ..., Group CCW": the parts are read one by one)
    if org and not _INITIAL_DOT.search(text) and len(_FAMILY_INITIALS.findall(text)) < 2:
        return [{"literal": text}], etal
    text = _AND.sub(", ", text) if not org else text
    if ";" in text:
        parts = [p.strip(" ,") for p in text.split(";")]
        people = []
        for p in parts:
            if "," in p:
                fam, _, giv = p.partition(",")
                people.append({"family": fam.strip(), "given": giv.strip()} if giv.strip() else {"family": fam.strip()})
            elif p:
                people.append(_person(p))
        return [p for p in people if p], etal
    parts = [p.strip() for p in text.split(",") if p.strip(" .")]
    people: list[dict] = []
    i = 0
    while i < len(parts):
        p = parts[i]
        if org and _ORG.search(p):
            people.append({"literal": p.strip(" .")})
            i += 1
            continue
        nxt = parts[i + 1] if i + 1 < len(parts) else None
        if _SUFFIX.match(p) and people and "family" in people[-1]:
            people[-1]["family"] += f" {p}"
            i += 1
            continue
        # "Bahcall, J.N." / "Smith, John": a family name alone, then its given names
        if nxt is not None and " " not in p.strip() or (nxt is not None and _is_initials(nxt) and not _has_initials(p)):
            if nxt is not None and (_is_initials(nxt) or (len(nxt.split()) <= 2 and not _has_initials(p)
                                                           and len(p.split()) <= 2 and _looks_given(nxt, parts, i))):
                people.append(_family_given(p.strip(), nxt.strip()))
                i += 2
                continue
        person = _person(p)
        if person:
            people.append(person)
        i += 1
    return people, etal


def _has_initials(part: str) -> bool:
    return any(_INITIALS.match(w) for w in part.split())


def _looks_given(nxt: str, parts: list[str], i: int) -> bool:
    # "Smith, John, Doe, Jane": every second part is one word -> family, given pairs
    singles = sum(1 for p in parts if len(p.split()) == 1)
    return singles >= len(parts) - 1 and len(parts) % 2 == 0


def is_name(person: dict) -> bool:
    """Whether a split-off person reads as a name: capitalised words, particles, initials
    ("Bartz v. Anthropic PBC, no." is a court case, not two people)."""
    if "literal" in person:
        return True
    text = " ".join(x for x in (person.get("given"), person.get("family")) if x)
    words = text.split()
    if not words or any(map(str.isdigit, text)):  # one pass over the characters, not a generator per word
        return False
    for i, w in enumerate(words):
        if not (w[0].isupper() or w[0] in "'’(" or w.lower() in PARTICLES or _abbr_particle(words, i)):
            return False
    return True


def display_name(person: dict) -> str:
    """"Given Family" as the ``authors`` strings of references.json have it."""
    if "literal" in person:
        return person["literal"]
    return " ".join(x for x in (person.get("given"), person.get("family")) if x)
