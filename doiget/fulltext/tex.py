"""arXiv LaTeX source (``/e-print/<id>``) -> sectioned text.

The e-print is a gzipped tarball or a single gzipped .tex (sometimes neither). It is unpacked
in memory only, with bounded decompression; absolute paths, ``..`` components, links and
device entries make the whole archive refused (BLOCKED), and the size/file-count caps
stop it (TOO_LARGE). The main file is the one with ``\\documentclass`` (preferring one with
``\\begin{document}``); ``\\input``/``\\include`` are inlined, at most :data:`MAX_INPUTS` times and
:data:`MAX_FLAT_CHARS` characters in all (files that include each other fan out exponentially).
Every pattern run over the source is linear-time: bracketed arguments have bounded length, and
math spans and environments are found with ``str.find`` (a lazy ``.+?`` regex rescans the rest of
the text for every unclosed ``\\(``).
"""
from __future__ import annotations

import io
import posixpath
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from doiget.errors import DoigetError, ErrorCode
from doiget import limits
from doiget.fulltext import guard
from doiget.fulltext.builder import TextBuilder, clean_inline
from doiget.fulltext.document import Document

MAX_TOTAL_BYTES = limits.MAX_TEX_BYTES
MAX_FILES = limits.MAX_TEX_FILES
MAX_INPUT_DEPTH = 20
MAX_INPUTS = 1000
MAX_FLAT_CHARS = 20_000_000
MAX_ARG_CHARS = 500  # longest [optional] or {file} argument a pattern looks through
MAX_TITLE_CHARS = 5000  # longest braced \title / \section argument
TEXT_EXTENSIONS = (".tex", ".ltx", ".bbl", ".bib", ".sty", ".cls", ".bst", ".txt")
PREFERRED_MAIN_STEMS = ("main", "ms", "paper", "article")
_READ_CHUNK = 1 << 16

_COMMENT = re.compile(r"(?<!\\)%.*")
_OPT = r"(?:\[[^\]]{0,%d}\])" % MAX_ARG_CHARS
_INPUT = re.compile(r"\\(?:input|include)\s*\{([^{}]{1,%d})\}" % MAX_ARG_CHARS)
_DOCCLASS = re.compile(r"\\documentclass\b")
_BEGIN_DOC = re.compile(r"\\begin\s*\{document\}")
_END_DOC = re.compile(r"\\end\s*\{document\}")
_MATH_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
              "eqnarray", "eqnarray*", "displaymath", "math")
_MATH_OPEN = re.compile(r"\$|\\[\[(]|\\begin\{(" + "|".join(re.escape(e) for e in _MATH_ENVS) + r")\}")
_SECTION = re.compile(r"\\(section|subsection|subsubsection|chapter)\*?\s*" + _OPT + r"?\s*\{")
_TITLE = re.compile(r"\\title\s*" + _OPT + r"?\s*\{")
_BRACE = re.compile(r"(?<!\\)[{}]")
_LEVELS = {"chapter": 2, "section": 2, "subsection": 3, "subsubsection": 3}
_DROP_WITH_ARG = re.compile(
    r"\\(?:label|includegraphics|bibliographystyle|bibliography|vspace|hspace|thanks|footnotetext|"
    r"usepackage|newcommand|renewcommand|setlength|addbibresource)\*?\s*" + _OPT + r"?\s*\{[^{}]*\}")
_UNWRAP = re.compile(
    r"\\(?:emph|textbf|textit|texttt|textsc|textrm|textsf|underline|mbox|text|caption|footnote|"
    r"paragraph|subparagraph|url|textsuperscript|textsubscript)\*?\s*" + _OPT + r"?\s*\{([^{}]*)\}")
_CITE = re.compile(r"\\(?:cite[a-z]*|ref|eqref|autoref|cref|Cref)\*?\s*" + _OPT + r"{0,2}\s*\{([^{}]*)\}")
_ENV_LINE = re.compile(r"\\(?:begin|end)\s*\{[^{}]{0,%d}\}(?:\s*%s)?" % (MAX_ARG_CHARS, _OPT))
_ITEM = re.compile(r"\\item\b\s*(?:\[([^\]]{0,%d})\])?" % MAX_ARG_CHARS)
_BARE_COMMAND = re.compile(r"\\(?:maketitle|centering|noindent|newpage|clearpage|small|large|Large|"
                           r"footnotesize|normalsize|bigskip|medskip|smallskip|par|hline|toprule|midrule|"
                           r"bottomrule|tableofcontents|appendix)\b\s*")
_ESCAPES = {r"\%": "%", r"\&": "&", r"\_": "_", r"\#": "#", r"\$": "$", "~": " ", "``": "“", "''": "”"}


@dataclass(frozen=True, slots=True)
class TexSource:
    """The text files of an e-print (path -> text) and which one is the main document."""

    main_file: str
    files: dict[str, str]

    def flattened(self) -> str:
        """The main file with ``\\input``/``\\include`` replaced by the included text; INVALID_INPUT
        past :data:`MAX_INPUTS` inclusions or :data:`MAX_FLAT_CHARS` characters."""
        return self._inline(self.main_file, 0, frozenset(), [0, len(self.files[self.main_file])])

    def _inline(self, name: str, depth: int, seen: frozenset[str], spent: list[int]) -> str:
        text = _strip_comments(self.files[name])
        if depth >= MAX_INPUT_DEPTH:
            return text
        base = posixpath.dirname(self.main_file)

        def replace(match: re.Match[str]) -> str:
            target = self._resolve(match.group(1).strip(), base)
            if target is None or target in seen:
                return ""
            spent[0] += 1
            spent[1] += len(self.files[target])
            if spent[0] > MAX_INPUTS or spent[1] > MAX_FLAT_CHARS:
                limit = (f"{MAX_INPUTS} inclusions" if spent[0] > MAX_INPUTS else f"{MAX_FLAT_CHARS} characters")
                raise DoigetError(ErrorCode.INVALID_INPUT, f"LaTeX \\input/\\include expansion exceeds {limit} "
                                  "(files that include each other?); refused", limit="latex_inputs")
            guard.check()
            return self._inline(target, depth + 1, seen | {name}, spent)

        return _INPUT.sub(replace, text)

    def _resolve(self, ref: str, base: str) -> str | None:
        for candidate in (ref, ref + ".tex"):
            for path in (posixpath.normpath(posixpath.join(base, candidate)), posixpath.normpath(candidate)):
                if path in self.files:
                    return path
        return None


def read_tex_source(data: bytes, max_total_bytes: int = MAX_TOTAL_BYTES, max_files: int = MAX_FILES) -> TexSource:
    """Unpack an arXiv e-print in memory and pick its main .tex file."""
    if data[:4] == b"%PDF":
        raise DoigetError(ErrorCode.INVALID_INPUT, "e-print is a PDF, not LaTeX source")
    raw = _gunzip(data, max_total_bytes) if data[:2] == b"\x1f\x8b" else data
    if len(raw) > max_total_bytes:
        raise DoigetError(ErrorCode.TOO_LARGE, f"e-print larger than {max_total_bytes} bytes")
    files = _untar(raw, max_total_bytes, max_files) if _is_tar(raw) else {"main.tex": _decode(raw)}
    return TexSource(_main_file(files), files)


def extract_tex(data: bytes) -> Document:
    """Turn an e-print's main document into sectioned text; math is kept as TeX."""
    source = read_tex_source(data)
    text = source.flattened()
    title = _braced_after(text, _TITLE)
    begin, end = _BEGIN_DOC.search(text), _END_DOC.search(text)
    body = text[begin.end() if begin else 0: end.start() if end else len(text)]
    builder = TextBuilder()
    if title:
        builder.heading(_plain(title), 1)
    _emit_body(builder, body)
    return builder.build("tex", title=_plain(title) if title else None)


def _gunzip(data: bytes, limit: int) -> bytes:
    """Decompress (possibly multi-member) gzip, stopping as soon as output passes ``limit``."""
    out = bytearray()
    remaining = data
    while remaining[:2] == b"\x1f\x8b":
        decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = remaining
        try:
            while True:
                chunk = decomp.decompress(pending, _READ_CHUNK)
                out += chunk
                if len(out) > limit:
                    raise DoigetError(ErrorCode.TOO_LARGE, f"e-print decompresses to more than {limit} bytes")
                pending = decomp.unconsumed_tail
                if decomp.eof:
                    break
                if not pending and not chunk:
                    raise DoigetError(ErrorCode.INVALID_INPUT, "e-print gzip stream is truncated")
        except zlib.error as exc:
            raise DoigetError(ErrorCode.INVALID_INPUT, f"e-print is not valid gzip: {exc}") from exc
        remaining = decomp.unused_data
    return bytes(out)


def _is_tar(raw: bytes) -> bool:
    return len(raw) >= 512 and raw[257:262] == b"ustar"


def _untar(raw: bytes, max_total_bytes: int, max_files: int) -> dict[str, str]:
    files: dict[str, str] = {}
    total = count = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            for member in archive:
                _check_member(member)
                if member.isdir():
                    continue
                count += 1
                total += member.size
                if count > max_files:
                    raise DoigetError(ErrorCode.TOO_LARGE, f"e-print has more than {max_files} files")
                if total > max_total_bytes:
                    raise DoigetError(ErrorCode.TOO_LARGE, f"e-print files exceed {max_total_bytes} bytes")
                name = posixpath.normpath(member.name)
                if name.lower().endswith(TEXT_EXTENSIONS):
                    handle = archive.extractfile(member)
                    files[name] = _decode(handle.read() if handle else b"")
    except tarfile.TarError as exc:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"e-print tarball is corrupt: {exc}") from exc
    return files


def _check_member(member: tarfile.TarInfo) -> None:
    name = member.name
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in re.split(r"[/\\]", name):
        raise DoigetError(ErrorCode.BLOCKED, f"e-print member with unsafe path refused: {name!r}")
    if not (member.isfile() or member.isdir()):
        raise DoigetError(ErrorCode.BLOCKED, f"e-print member that is a link or device refused: {name!r}")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _main_file(files: dict[str, str]) -> str:
    candidates = []
    for name, text in files.items():
        if not name.lower().endswith((".tex", ".ltx")):
            continue
        code = _strip_comments(text)
        if _DOCCLASS.search(code):
            stem = posixpath.splitext(posixpath.basename(name))[0].lower()
            candidates.append((not _BEGIN_DOC.search(code), stem not in PREFERRED_MAIN_STEMS,
                               name.count("/"), name))
    if not candidates:
        raise DoigetError(ErrorCode.INVALID_INPUT, "e-print has no .tex file with \\documentclass")
    return min(candidates)[-1]


def _strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def _braced_after(text: str, opener: re.Pattern[str]) -> str | None:
    match = opener.search(text)
    return _braced_from(text, match.end()) if match else None


def _braced_from(text: str, start: int) -> str | None:
    """The text from ``start`` up to the ``}`` closing an already open ``{`` (within
    :data:`MAX_TITLE_CHARS`), or None."""
    depth = 1
    for brace in _BRACE.finditer(text, start, start + MAX_TITLE_CHARS):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return text[start:brace.start()]
    return None


def _closing_braces(text: str) -> dict[int, int]:
    """End of each ``{``'s argument: the position of the ``}`` closing it (unclosed ones absent),
    found in one pass, so that many unclosed openers cost linear time, not one window scan each."""
    closing, open_at = {}, []
    for brace in _BRACE.finditer(text):
        if brace.group() == "{":
            open_at.append(brace.end())
        elif open_at:
            closing[open_at.pop()] = brace.start()
    return closing


def _environment(body: str, name: str, start: int = 0) -> tuple[int, int, int, int] | None:
    """(start, content start, content end, end) of the first complete ``name`` environment."""
    opener, closer = f"\\begin{{{name}}}", f"\\end{{{name}}}"
    begin = body.find(opener, start)
    end = body.find(closer, begin + len(opener)) if begin >= 0 else -1
    return None if end < 0 else (begin, begin + len(opener), end, end + len(closer))


def _emit_body(builder: TextBuilder, body: str) -> None:
    abstract = _environment(body, "abstract")
    if abstract:
        builder.heading("Abstract", 2)
        _emit_paragraphs(builder, body[abstract[1]:abstract[2]])
        body = body[:abstract[0]] + body[abstract[3]:]
    kept, position = [], 0
    while (bibliography := _environment(body, "thebibliography", position)) is not None:
        kept.append(body[position:bibliography[0]])
        position = bibliography[3]
    body = "".join(kept) + body[position:]
    position, closing = 0, _closing_braces(body)
    for match in _SECTION.finditer(body):
        guard.check()
        end = closing.get(match.end(), -1)
        if not match.end() <= end <= match.end() + MAX_TITLE_CHARS:
            continue
        title = body[match.end():end]
        _emit_paragraphs(builder, body[position:match.start()])
        builder.heading(_plain(title), _LEVELS[match.group(1)])
        position = match.end() + len(title) + 1
    _emit_paragraphs(builder, body[position:])


def _emit_paragraphs(builder: TextBuilder, text: str) -> None:
    for block in re.split(r"\n\s*\n", _plain(text, keep_breaks=True)):
        builder.paragraph(clean_inline(block))


def _plain(text: str, keep_breaks: bool = False) -> str:
    """Strip common commands from LaTeX prose; math spans are kept verbatim (display as $$...$$)."""
    maths: list[str] = []
    pieces, last = [], 0
    for start, end, environment in _math_spans(text):
        span = text[start:end]
        if environment:
            span = f"\n\n{span}\n\n"
        elif span.startswith(("\\[", "$$")):
            span = f"\n\n$${span[2:-2].strip()}$$\n\n"
        maths.append(span)
        pieces += [text[last:start], f"\x00{len(maths) - 1}\x00"]
        last = end
    text = "".join(pieces) + text[last:]
    text = _DROP_WITH_ARG.sub("", text)
    text = _CITE.sub(lambda m: "[" + ", ".join(p.strip() for p in m.group(1).split(",")) + "]", text)
    for _ in range(3):  # nested formatting such as \textbf{\emph{x}}
        text = _UNWRAP.sub(r"\1", text)
    text = _ITEM.sub(lambda m: "\n\n- " + (f"{m.group(1)} " if m.group(1) else ""), text)
    text = _ENV_LINE.sub("\n\n", text)
    text = _BARE_COMMAND.sub("", text)
    text = text.replace("\\\\", "\n")
    for escaped, plain in _ESCAPES.items():
        text = text.replace(escaped, plain)
    text = re.sub(r"\x00(\d+)\x00", lambda m: maths[int(m.group(1))], text)
    return text if keep_breaks else clean_inline(text)


def _math_spans(text: str) -> Iterator[tuple[int, int, str | None]]:
    """(start, end, environment) of each math span, left to right and non-overlapping: ``$$..$$``,
    ``\\[..\\]``, ``\\(..\\)``, ``$..$`` (unescaped) and the math environments, as the lazy regex
    ``\\(.+?\\)|...`` would find them — in linear time: a closer once found missing after some
    point is never searched for again."""
    missing: dict[str, int] = {}  # closer -> a position after which it does not occur

    def find(closer: str, start: int) -> int:
        if start >= missing.get(closer, len(text) + 1):
            return -1
        found = text.find(closer, start)
        while found > 0 and closer == "$" and text[found - 1] == "\\":
            found = text.find(closer, found + 1)
        if found < 0:
            missing[closer] = min(start, missing.get(closer, start))
        return found

    position = 0
    while (opener := _MATH_OPEN.search(text, position)) is not None:
        start = opener.start()
        token = opener.group()
        if opener.group(1):
            candidates = [(f"\\end{{{opener.group(1)}}}", opener.end())]
        elif token == "$":
            candidates = [("$$", start + 3)] if text.startswith("$$", start) else []
            if start == 0 or text[start - 1] != "\\":
                candidates.append(("$", start + 2))
        else:
            candidates = [("\\]" if token == "\\[" else "\\)", start + 3)]
        for closer, search_from in candidates:
            end = find(closer, search_from)
            if end >= 0:
                yield start, end + len(closer), opener.group(1)
                position = end + len(closer)
                break
        else:
            position = start + 1
