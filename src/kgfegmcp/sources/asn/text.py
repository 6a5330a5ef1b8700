"""Which literal is a statement's text, and its language tag as a profile writes it.

ASN puts a statement's text in ``dcterms:description``; ACARA's MRAC puts it in ``dcterms:title`` (and gives
its Levels an HTML ``dcterms:description`` introduction). Which predicate comes first is data (the vocabulary's
``textPredicates``, or the publisher's). The text is returned exactly as the document gives it: LaTeX, HTML and
line breaks included, nothing stripped or normalised.
"""

from __future__ import annotations

import re

from kgfegmcp.sources.asn.document import DCTERMS, AsnNode, Text
from kgfegmcp.sources.asn.vocabulary import TextPredicate

TEXT_PREDICATES: dict[TextPredicate, str] = {"description": DCTERMS + "description", "title": DCTERMS + "title"}
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")


def statement_literal(node: AsnNode, predicates: tuple[TextPredicate, ...]) -> tuple[Text | None, str | None]:
    """The first non-blank literal of the first predicate that has one, and that predicate's IRI."""
    for name in predicates:
        predicate = TEXT_PREDICATES[name]
        for text in node.texts(predicate):
            if text.value.strip():
                return text, predicate
    return None, None


def statement_text(node: AsnNode, predicates: tuple[TextPredicate, ...]) -> tuple[str | None, str | None]:
    """:func:`statement_literal`'s text, exactly as written, and its predicate."""
    literal, predicate = statement_literal(node, predicates)
    return (None if literal is None else literal.value), predicate


def language_tag(tag: str | None) -> str | None:
    """A BCP 47 tag in its usual case (``en-au`` → ``en-AU``); ``None`` when absent or not a tag."""
    if tag is None or _LANGUAGE.fullmatch(tag) is None:
        return None
    primary, *rest = tag.split("-")
    return "-".join([primary.lower(), *(part.upper() if len(part) == 2 else part.lower() for part in rest)])
