"""Requests as teachers write them, on the real default catalog over the MCP client: inflection meets and
derivation does not, request words and stage abbreviations are read and reported, and a word a framework
holds in no form of its own is searched by its related forms. Each answer is checked in both views.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from kgfegmcp.search.normalize import tokens
from tool_calls import call, structured, texts

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"


async def search(client: Client[Any], query: str, **request: Any) -> tuple[dict[str, Any], str]:
    result = await call(client, "search_standards", {"query": query, "limit": 10, **request})
    return structured(result), "\n".join(texts(result))


async def test_a_derivation_is_not_a_match_of_the_word(default_client: Client[Any]) -> None:
    """ "letra" (letter) never finds "letradas" (literate cultures): only statements holding letra or letras."""
    body, _ = await search(default_client, "letra", frameworkIds=[EF], limit=50)
    own = [set(tokens(hit["description"])) for hit in body["hits"] if hit["matchedIn"] == "statement"]
    assert own and all(words & {"letra", "letras"} for words in own)
    headings = [hit for hit in body["hits"] if hit["matchedIn"] == "heading"]
    assert all(not words & {"letrada", "letradas", "letrado"} or words & {"letra", "letras"} for words in own)
    assert len(own) + len(headings) == len(body["hits"])


async def test_inflections_and_unaccented_forms_meet(default_client: Client[Any]) -> None:
    plural, _ = await search(default_client, "frações equivalentes", frameworkIds=[EF])
    typed, _ = await search(default_client, "fracao equivalente", frameworkIds=[EF])
    # The same statements match, by the same terms; only the exact-form bonus orders them differently.
    assert (plural["total"], plural["matched"]) == (typed["total"], typed["matched"])
    assert plural["hits"][0]["nodeId"] == typed["hits"][0]["nodeId"]
    assert plural["hits"][0]["coverage"] == typed["hits"][0]["coverage"] == "phrase"


async def test_request_words_are_set_aside_and_said(default_client: Client[Any]) -> None:
    body, text = await search(default_client, "atividade para separar palavras em sílabas 1º ano", frameworkIds=[EF])
    (reading,) = body["interpretation"]
    assert reading["requestWords"] == ["atividade"] and "atividade" not in reading["searchedTerms"]
    assert reading["grades"] == ["1º ano"]
    assert "set aside as the request's own atividade" in text
    assert body["hits"][0]["statementCode"].startswith("EF01LP")


async def test_stop_words_keep_the_words_a_statement_teaches(default_client: Client[Any]) -> None:
    """CCSS L.4.1.g is about "there" and "their": they are searched, not dropped."""
    body, _ = await search(default_client, "their there", frameworkIds=[CCSS])
    (reading,) = body["interpretation"]
    assert reading["searchedTerms"] == ["their", "there"] and "droppedWords" not in reading
    assert body["hits"][0]["statementCode"] == "L.4.1.g"


async def test_the_ensino_medio_abbreviation_is_read_only_in_capitals(default_client: Client[Any]) -> None:
    body, text = await search(default_client, "funções quadráticas 3º ano do EM", frameworkIds=[EM])
    (reading,) = body["interpretation"]
    assert reading["grades"] == ["Ensino Médio"] and reading["searchedTerms"] == ["funcoes", "quadraticas"]
    assert "grades Ensino Médio preferred" in text
    lower, _ = await search(default_client, "funções em problemas", frameworkIds=[EM])
    (reading,) = lower["interpretation"]
    assert "grades" not in reading and "em" in reading["droppedWords"]


async def test_a_word_held_in_no_form_is_searched_by_its_related_forms(default_client: Client[Any]) -> None:
    """CCSS 2-4 never writes "capital": its derivations (Capitalize, capitalization) are searched instead,
    and both views say so; a word the framework holds is never widened so."""
    body, text = await search(default_client, "capital letters", frameworkIds=[CCSS])
    (reading,) = body["interpretation"]
    assert reading["relatedForms"] == ["capital"] and "unknownTerms" not in reading
    assert "searched by related forms capital" in text
    assert any(hit["statementCode"] == "L.3.2.a" for hit in body["hits"])  # Capitalize appropriate words in titles
    held, _ = await search(default_client, "letters", frameworkIds=[CCSS])
    assert "relatedForms" not in held["interpretation"][0]


async def test_words_that_leave_the_page_short_are_widened_to_their_related_forms(default_client: Client[Any]) -> None:
    """Ensino Médio writes "resenhas" twice and "resenhar" once: "resenha" alone matches fewer statements than
    a page holds, so its related forms are searched too, its own forms first."""
    body, text = await search(default_client, "resenha", frameworkIds=[EM])
    (reading,) = body["interpretation"]
    assert reading["relatedForms"] == ["resenha"] and "searched by related forms resenha" in text
    descriptions = [hit["description"].casefold() for hit in body["hits"]]
    assert any("resenhar" in d for d in descriptions) and "resenhas" in descriptions[0]
    many, _ = await search(default_client, "letra", frameworkIds=[EF])
    assert "relatedForms" not in many["interpretation"][0] and many["total"] >= 10


async def test_a_word_held_in_headings_more_than_in_statements_is_widened(default_client: Client[Any]) -> None:
    """Ensino Fundamental files many statements under headings naming the "alfabeto", yet few statements
    hold the word in their own text: its related forms are searched, so "escrita alfabética" (EF01LP05)
    is on the page, above statements that only sit under such a heading."""
    body, text = await search(default_client, "alfabeto", frameworkIds=[EF])
    (reading,) = body["interpretation"]
    assert reading["relatedForms"] == ["alfabeto"] and "searched by related forms alfabeto" in text
    codes = [hit.get("statementCode") for hit in body["hits"]]
    assert "EF01LP05" in codes
    headings = [i for i, hit in enumerate(body["hits"]) if hit["matchedIn"] == "heading"]
    assert all(codes.index("EF01LP05") < i for i in headings)


async def test_opinion_writing_finds_the_opinion_writing_standards(default_client: Client[Any]) -> None:
    """ "writing" meets "Write opinion pieces" (W.3.1), so the sub-standards filed under it match every term."""
    body, _ = await search(default_client, "opinion writing grade 3", frameworkIds=[CCSS])
    codes = [hit["statementCode"] for hit in body["hits"]]
    assert set(codes[:5]) == {"W.3.1", "W.3.1.a", "W.3.1.b", "W.3.1.c", "W.3.1.d"}


async def test_inflections_of_one_word_are_one_term(default_client: Client[Any]) -> None:
    """ "words" and "word" in one request are one searched term, so the word does not weigh twice."""
    body, _ = await search(default_client, "word meanings and words", frameworkIds=[CCSS])
    assert body["interpretation"][0]["searchedTerms"] == ["word", "meanings"]


async def test_a_grade_named_in_one_framework_ranks_it_first_across_frameworks(default_client: Client[Any]) -> None:
    """Searched everywhere, "5 ano" is read as a grade by Ensino Fundamental only; a framework that cannot
    read it (where "5" matches a "⑤") ranks below the 5º ano statements that honour it."""
    body, _ = await search(default_client, "frações equivalentes 5 ano", limit=3)
    assert [hit["statementCode"][:4] for hit in body["hits"]] == ["EF05", "EF05", "EF06"]  # two 5º ano hold them


async def test_hints_only_where_the_query_is_read(default_client: Client[Any]) -> None:
    """A Portuguese request searched in every framework: the English and Japanese ones find none of its words,
    so their nearest words ("para" near "paragraphs") would be noise and are not given; a misspelt word alone,
    found nowhere, is hinted wherever it has neighbours."""
    body, _ = await search(default_client, "frações equivalentes cooperativos")
    by_package = {pid: r for r in body["interpretation"] for pid in r["graphPackageIds"]}
    assert "nearestWords" not in by_package["us-ccss-ela-literacy-grades-2-4@chiron-0-1-0"]
    assert by_package["brazil-bncc-ensino-fundamental@dados-2026-07-1"]["unknownTerms"] == ["cooperativos"]
    assert "cooperativos" in by_package["brazil-bncc-ensino-fundamental@dados-2026-07-1"]["nearestWords"]
    alone, _ = await search(default_client, "agreemnt", frameworkIds=[CCSS])
    assert "agreement" in alone["interpretation"][0]["nearestWords"]["agreemnt"]
