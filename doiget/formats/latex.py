"""LaTeX field text as Unicode: common accents and text macros by table, anything else through pylatexenc; a
macro neither knows is kept as written, never dropped."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# Text macros pylatexenc reads as another character or as nothing (\textasciicircum as U+02C6, \textminus
# dropped): each is the character the BibTeX export writes it for, so an exported text reads back the same.
_FIXED = {"textasciicircum": "^", "textasciitilde": "~", "textminus": "\u2212", "textasteriskcentered": "\u2217",
          "textperiodcentered": "\u00b7", "textunderscore": "_", "textbar": "|", "textless": "<", "textgreater": ">",
          "textbraceleft": "{", "textbraceright": "}"}


def _context_db():  # type: ignore[no-untyped-def]
    db = get_default_latex_context_db()
    db.add_context_category("doiget-fixed", prepend=True,
                            macros=[MacroTextSpec(name, simplify_repl=text) for name, text in _FIXED.items()])
    return db


_DB = _context_db()
_LATEX = LatexNodes2Text(latex_context=_DB, math_mode="text", strict_latex_spaces=True)
_ACCENT_MARKS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "r": "\u030a", "k": "\u0328",
}
_ACCENT = re.compile(r"""\\(?:(['"`^~=.])\s*|([uvHcrk])(?:\s+|(?=\{)))(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij]|[A-Za-z]))""")
_MACRO = re.compile(r"\\([A-Za-z]+)(?:\{\}|\s*)")


def _macro_tables() -> tuple[dict[str, str], frozenset[str]]:
    """pylatexenc's own table: macros that stand for a text (\\ss, \\textquoteright, \\alpha) and
    macros that just output their argument (\\ensuremath)."""
    text, wrappers = {}, set()
    for spec in _DB.iter_macro_specs():  # in the db's order: a fixed spelling before pylatexenc's
        if spec.macroname in text or spec.macroname in wrappers:
            continue
        if isinstance(spec.simplify_repl, str):
            if "%" not in spec.simplify_repl:
                text[spec.macroname] = spec.simplify_repl
            elif spec.simplify_repl == "%s":
                wrappers.add(spec.macroname)
    return text, frozenset(wrappers)


_MACRO_TEXT, _MACRO_WRAPPERS = _macro_tables()
_ESCAPED = re.compile(r"\\([&%$#_])")
_OTHER_LATEX = re.compile(r"\\(?![&%$#_])|(?<!\\)\$")
_OPEN, _CLOSE = "\ue000", "\ue001"  # stand-ins for \{ and \} while grouping braces are dropped
_TILDE = "\ue002"  # a macro's "~" (\textasciitilde) while ties become spaces
_LITERAL = str.maketrans({"{": _OPEN, "}": _CLOSE, "~": _TILDE})


def _accent(match: re.Match[str]) -> str:
    base = (match.group(3) or match.group(4)).lstrip("\\")
    return unicodedata.normalize("NFC", base + _ACCENT_MARKS[match.group(1) or match.group(2)])


def _macro(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _MACRO_WRAPPERS:
        return ""
    text = _MACRO_TEXT.get(name)
    return match.group(0) if text is None else text.translate(_LITERAL)


def _untex_common(value: str) -> str | None:
    """Decode accents, text macros and escapes by table; None when other LaTeX remains (math, unknown macros)."""
    text = value.replace(r"\{", _OPEN).replace(r"\}", _CLOSE)
    text = _MACRO.sub(_macro, _ACCENT.sub(_accent, text))
    if _OTHER_LATEX.search(text):
        return None
    text = _ESCAPED.sub(r"\1", text)
    text = text.replace("---", "\u2014").replace("--", "\u2013")  # before the braces go: -{}- is two hyphens
    text = text.replace("{", "").replace("}", "").replace("~", "\u00a0")
    return text.replace(_OPEN, "{").replace(_CLOSE, "}").replace(_TILDE, "~")


# In text without these characters _untex_common changes only dash pairs: no backslash, brace, "~",
# "$" or brace stand-in.
_PLAIN = re.compile(r"[^\\{}~$\ue000\ue001]*")


# BibTeX's sort-key trick (its manual's @preamble{"\newcommand{\noopsort}[1]{}"}): prints nothing, argument included.
_SORT_ONLY = re.compile(r"\\(?:noopsort|SortNoop|sortnoop)\s*\{[^{}]*\}")


@lru_cache(maxsize=4096)
def untex(value: str) -> str:
    """LaTeX field text as Unicode: common accents by table, anything else through pylatexenc."""
    if "\\" in value:
        value = _SORT_ONLY.sub("", value)
    if _PLAIN.fullmatch(value):
        text = value.replace("---", "\u2014").replace("--", "\u2013") if "--" in value else value
        return " ".join(text.split())
    text = _untex_common(value)
    if text is None:
        text = _with_unknown_macros_kept(value)
    return " ".join(text.split())


# A line break as LaTeX writes one: \newline (what the BibTeX export writes), \\ with its optional star or length.
_LINE_BREAK = re.compile(r"\s*(?:\\newline(?![A-Za-z])(?:\{\})?|(?<!\\)\\\\\*?(?:\[[^\]]*\])?)\s*")


def untex_lines(value: str) -> str:
    """A LaTeX prose field (a note, an abstract) as :func:`untex` reads it, but with each line break it writes
    (``\\newline``, ``\\\\``) kept as a newline: a line break is a space to BibTeX, but a line of its own to
    the note's reader (Scopus's "Export Date: ..." and "References: ..." lines)."""
    return "\n".join(untex(line) for line in _LINE_BREAK.split(value)) if "\\" in value else untex(value)


# A macro and the brace groups right after it (two levels deep); standard macros that just print their argument.
_ANY_MACRO = re.compile(r"(?<!\\)\\([A-Za-z]+)\*?((?:\s*\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})*)")
_TRANSPARENT = re.compile(r"\\(?:mbox|hbox|text|textrm|textsf|texttt|textup|textmd|textnormal|textsl|textsuperscript|textsubscript)\s*(?=\{)")
_KEPT = 0xF0000  # a kept macro's stand-in: a supplementary private-use character per macro


@lru_cache(maxsize=1024)
def _decodes(name: str) -> bool:
    """Whether pylatexenc has a text for macro ``name`` that works (its ``\\textfrac`` prints "%s/%s")."""
    if _DB.get_macro_spec(name) is None:
        return False
    return "%s" not in _LATEX.latex_to_text(f"\\{name}{{a}}{{b}}")


def _with_unknown_macros_kept(value: str) -> str:
    """``value`` through pylatexenc, every macro it does not know kept verbatim with its arguments (pylatexenc
    drops them, or their braces only: ``\\SI{5}{\\kilo\\metre}`` read as "5")."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        if _decodes(match.group(1)):
            return match.group(0)
        kept.append(match.group(0))
        return chr(_KEPT + len(kept) - 1)

    text = _LATEX.latex_to_text(_ANY_MACRO.sub(keep, _TRANSPARENT.sub("", value)))
    return re.sub("[\U000F0000-\U000FFFFD]", lambda m: kept[ord(m.group()) - _KEPT], text) if kept else text


# LaTeX text styles and the CSL rich-text tags they are (\emph: Better BibTeX's spelling of Zotero's <i>). While a
# text is decoded each style's braces are two private-use characters, which untex passes through.
RICH_TAGS = {"textit": "i", "emph": "i", "textbf": "b", "textsc": "sc", "textsuperscript": "sup",
             "textsubscript": "sub"}
_STYLE = re.compile(r"\\(" + "|".join(RICH_TAGS) + r")\s*\{")
_MARKS = {tag: (chr(0xE010 + 2 * i), chr(0xE011 + 2 * i)) for i, tag in enumerate(dict.fromkeys(RICH_TAGS.values()))}
_MARK_TAG = {mark: f"<{'/' * end}{tag}>" for tag, marks in _MARKS.items() for end, mark in enumerate(marks)}
_NOCASE_MARKS = ("\ue030", "\ue031")  # the braces of a group that protects its case: CSL's nocase span
_MARK_TAG |= dict(zip(_NOCASE_MARKS, ('<span class="nocase">', "</span>")))
_MARK = re.compile("[" + "".join(_MARK_TAG) + "]")
RICH_TAG = re.compile(r"</?(?:" + "|".join(_MARKS) + r")>|<span class=\"nocase\">|</span>")  # the tags rich_text writes
# A capital after the first character marks an acronym or a brand name (DNA, PaperQA, iPhone, CO2), which the
# BibTeX export braces in a title that has no markup of its own; surrounding punctuation stays outside the braces.
PROTECTED_WORD = re.compile(r"^(\W*)(\w\S*?[A-Z]\S*?)(\W*)$")
_MACRO_BEFORE = re.compile(r"\\[A-Za-z]+\*?\s*(?:\{[^{}]*\}\s*)*$")  # a brace group right after it is its argument


def _case_protected(text: str) -> str:
    """``text`` with the braces of each outermost group that protects its case from a style (``{Smith}``,
    ``{Bose}-{Einstein}``) as the nocase marks. Not such groups: a macro's argument, a special character
    (``{\\"u}``), math, a word the BibTeX export braces anyway (``{DNA}``, ``{iPhone}``: it says nothing a CSL
    processor would not keep), and braces around the whole text (Better BibTeX's ``{{...}}``, a title whose case
    Zotero keeps, its CSL-JSON has no span)."""
    out, stack, math = list(text), [], False  # stack: where each open group starts, None for a group not read
    whole = (len(text) - len(text.lstrip()), len(text.rstrip()) - 1)
    for i, char in enumerate(text):
        escaped = i > 0 and text[i - 1] == "\\"
        if char == "$" and not escaped:
            math = not math
        elif char == "{" and not escaped:
            stack.append(i if not stack and not math and text[i + 1:i + 2] not in ("\\", "}", "")
                         and not _MACRO_BEFORE.search(text, 0, i) else None)
        elif char == "}" and not escaped and stack:
            start = stack.pop()
            word = PROTECTED_WORD.match(untex(text[start + 1:i])) if start is not None else None
            if start is not None and (start, i) != whole and not (word and not word.group(1) and not word.group(3)):
                out[start], out[i] = _NOCASE_MARKS
    return "".join(out) if not stack else text


def rich_text(value: str) -> str | None:
    """A LaTeX field as CSL rich text (``the \\emph{De Medicina} of`` -> ``the <i>De Medicina</i> of``, ``{DNA}``
    -> ``<span class="nocase">DNA</span>``), None when it has no text style and no case-protecting braces."""
    if "{" not in value:
        return None
    chars, closing = list(value), {}
    for match in _STYLE.finditer(value):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(value)):
            depth += (value[end] == "{") - (value[end] == "}")
            if depth == 0:
                break
        if depth:
            return None  # unbalanced: not read as a style
        opening, closing[end] = _MARKS[RICH_TAGS[match.group(1)]]
        chars[match.start()] = opening
        chars[match.start() + 1:match.end()] = [""] * (match.end() - match.start() - 1)
    for end, mark in closing.items():
        chars[end] = mark
    text = _case_protected("".join(chars))
    if not _MARK.search(text):
        return None
    return _MARK.sub(lambda m: _MARK_TAG[m.group()], untex(text))


# What .bib writers put in a DOI or URL for classic BibTeX, whose text mode takes none of these characters bare:
# Mendeley's {\_}, BibDesk's \& and \% (both in the real files of tests/fixtures), hand-written \_ and $\_$.
# A backslash or a brace is never part of a DOI or URL (RFC 3986 has them percent-encoded), so the escape is
# undone, never kept.
_VERBATIM_ESCAPE = re.compile(r"\{\\([_&%#$])\}|\\([_&%#$])|\$\\_\$")


def unescape_verbatim(value: str) -> str:
    """A DOI, URL or identifier field as its writer meant it: ``10.1007/978-3-540-89689-0{\\_}23`` ->
    ``10.1007/978-3-540-89689-0_23``, ``?a=1\\&b=2`` -> ``?a=1&b=2``."""
    if "\\" not in value:
        return value
    return _VERBATIM_ESCAPE.sub(lambda m: m.group(1) or m.group(2) or "_", value)
