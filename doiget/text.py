"""Small text normalisations shared by identity, the person index, duplicate finding, citation
matching and citation keys."""
from __future__ import annotations

import re
import unicodedata

# Letters that NFKD does not decompose into a base letter plus a combining mark.
_FOLD_EXTRA = str.maketrans({
    "ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
    "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i",
})


def _unaccented(text: str) -> str:
    """``text`` (not ASCII) with accents stripped and special Latin letters spelled in ASCII."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD_EXTRA))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def ascii_fold(text: str) -> str:
    """``text`` with accents stripped and special Latin letters spelled in ASCII (Ørsted -> Orsted); what
    has no ASCII spelling is dropped."""
    if text.isascii():
        return text
    return _unaccented(text).encode("ascii", "ignore").decode()


_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """``text`` lower-cased (casefold) with accents stripped and special Latin letters spelled in ASCII;
    letters of every other script are kept ("Sònia Ørsted" -> "sonia orsted", "Пётр" -> "петр",
    "张三" -> "张三"). Unlike :func:`ascii_fold`, a name or title in Cyrillic, Greek, CJK, ... never
    folds to nothing, so two of them cannot compare equal by having no letters left."""
    return text.lower() if text.isascii() else _unaccented(text).casefold()


def words(text: str) -> list[str]:
    """The words (runs of letters and digits, any script) of ``fold(text)``."""
    return _WORD.findall(fold(text))
