"""The search terms of a text, the same for documents and queries. Pure: no I/O.

- Words of letters and digits (``omar_davis_3817`` gives ``omar``, ``davis``, ``3817``), lower
  case, English stop words left out, reduced to their Snowball (Porter 2) stem so that
  "painting" finds "paints"; numbers are kept whole.
- Text without spaces (Chinese, Japanese, Korean) as overlapping character bigrams
  ("排除G123" gives ``排除`` and ``g123``): no dictionary, no segmenter to install, and every
  backend indexes the same terms (FTS5 ``unicode61`` and PostgreSQL's ``simple`` configuration
  both take space-separated terms as they are). A lone CJK character stands as itself.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from projections.text_caches import remembered

__all__ = ["MAX_QUERY_TERMS", "query_terms", "search_terms"]

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"  # kana, han, hangul
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")
_STOP = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t don ll re ve d m o""".split()  # noqa: SIM905 (a word list reads better so)
)
_CJK_STOP = frozenset(
    "的 了 是 在 和 也 就 都 而 及 与 着 或 一个 我们 你们 他们 这个 那个".split()  # noqa: SIM905
)


@cache
def _stemmer() -> Any:
    # Loaded on the first word stemmed: its import (about 60 ms) is most of what a read
    # that never searches would pay for recall.
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@remembered  # words of a message are its text: an erasure empties this too
@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    return word if word.isdigit() else str(_stemmer().stemWord(word))


def search_terms(text: str) -> list[str]:
    """Every term of ``text``, in order (repeats kept: term frequency counts)."""
    terms: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _IS_CJK.match(token):
            if len(token) == 1:
                terms.append(token)
            else:
                terms += [
                    b for i in range(len(token) - 1) if (b := token[i : i + 2]) not in _CJK_STOP
                ]
        elif token not in _STOP:
            terms.append(_stem(token))
    return terms


#: A query keeps its first terms only: each costs one frequency count in the store, and a long
#: pasted question (a Chinese sentence is a bigram per character) adds little after these.
MAX_QUERY_TERMS = 16


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order (at most :data:`MAX_QUERY_TERMS`)."""
    return list(dict.fromkeys(search_terms(text)))[:MAX_QUERY_TERMS]
