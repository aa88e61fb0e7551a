"""Small text normalisations shared by citation keys and citation matching."""
from __future__ import annotations

import unicodedata

# Letters that NFKD does not decompose into a base letter plus a combining mark.
_FOLD_EXTRA = str.maketrans({
    "ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
    "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i",
})


def ascii_fold(text: str) -> str:
    """``text`` with accents stripped and special Latin letters spelled in ASCII (Ørsted -> Orsted)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD_EXTRA))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).encode("ascii", "ignore").decode()
