"""arXiv e-print unpacking (in memory, hostile archives refused) and LaTeX -> text."""
from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from doiget.errors import DoigetError, ErrorCode
from doiget.fulltext.tex import extract_tex, read_tex_source
from invariants import assert_well_formed

MAIN = r"""\documentclass[11pt]{article}
\usepackage{amsmath} % packages
\title{Sparse \emph{Soil} Models}
\begin{document}
\maketitle
\begin{abstract}
We model soil with $x^2$ terms; 50\% of cores were wet.
\end{abstract}
\section{Introduction}\label{sec:intro}
Earthworms matter \cite{darwin1881, lee1985}. See Eq.~\eqref{eq:energy}.
% this comment must vanish
\begin{equation}\label{eq:energy}
  E = mc^2 % inline comment
\end{equation}
\input{sections/methods}
\section*{Acknowledgements}
We thank \textbf{\emph{all}} field staff.
\begin{thebibliography}{9}\bibitem{darwin1881} C. Darwin, Vegetable mould.\end{thebibliography}
\end{document}
"""
METHODS = r"""\subsection{Sampling at \texttt{site-1}}
We sieved cores at \(2\,\mathrm{mm}\).
\begin{itemize}
\item first pass
\item[b)] second pass
\end{itemize}
"""


def tarball(members: dict[str, bytes], compress: bool = True) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if compress else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def hostile(kind: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as archive:
        ok = tarfile.TarInfo("main.tex")
        ok.size = len(MAIN)
        archive.addfile(ok, io.BytesIO(MAIN.encode()))
        info = tarfile.TarInfo({"dotdot": "../../etc/evil.tex", "absolute": "/tmp/evil.tex"}.get(kind, "link.tex"))
        if kind == "symlink":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        elif kind == "hardlink":
            info.type, info.linkname = tarfile.LNKTYPE, "main.tex"
        elif kind == "device":
            info.type = tarfile.CHRTYPE
        data = b"pwned"
        info.size = len(data) if info.type == tarfile.REGTYPE else 0
        archive.addfile(info, io.BytesIO(data) if info.size else None)
    return buf.getvalue()


@pytest.fixture
def eprint() -> bytes:
    return tarball({"paper.tex": MAIN.encode(), "sections/methods.tex": METHODS.encode(),
                    "figs/plot.png": b"\x89PNG\r\n\x1a\n", "notes.tex": b"just notes"})


def test_tarball_unpacks_in_memory_and_finds_main(eprint, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = read_tex_source(eprint)
    assert source.main_file == "paper.tex"
    assert sorted(source.files) == ["notes.tex", "paper.tex", "sections/methods.tex"]
    assert "\\subsection{Sampling" in source.flattened()
    assert list(tmp_path.iterdir()) == []


def test_extract_tex_sections_math_and_cleanup(eprint):
    doc = extract_tex(eprint)
    assert doc.source == "tex" and doc.title == "Sparse Soil Models"
    assert [l for l in doc.text.splitlines() if l.startswith("#")] == [
        "# Sparse Soil Models", "## Abstract", "## Introduction", "### Sampling at site-1", "## Acknowledgements"]
    text = doc.text
    assert "We model soil with $x^2$ terms; 50% of cores were wet." in text
    assert "Earthworms matter [darwin1881, lee1985]. See Eq. [eq:energy]." in text
    assert "\\begin{equation}\\label{eq:energy} E = mc^2 \\end{equation}" in text
    assert "We sieved cores at \\(2\\,\\mathrm{mm}\\)." in text
    assert "- first pass" in text and "- b) second pass" in text
    assert "We thank all field staff." in text
    for absent in ("comment", "\\maketitle", "\\usepackage", "Vegetable mould", "\\label{sec:intro}"):
        assert absent not in text, absent
    assert_well_formed(doc)
    assert extract_tex(eprint).content_sha256 == doc.content_sha256


def test_single_gzipped_tex_and_plain_tex():
    single = gzip.compress(MAIN.replace("\\input{sections/methods}", "").encode())
    source = read_tex_source(single)
    assert source.main_file == "main.tex" and list(source.files) == ["main.tex"]
    assert "## Introduction" in extract_tex(single).text
    assert read_tex_source(MAIN.encode("latin-1", "replace")).main_file == "main.tex"


def test_prefers_the_file_with_begin_document():
    data = tarball({"a_template.tex": b"\\documentclass{article}\n% \\begin{document}\n",
                    "z.tex": b"\\documentclass{article}\n\\begin{document}Hi\\end{document}",
                    "commented.tex": b"% \\documentclass{article}\n\\begin{document}\\end{document}"})
    assert read_tex_source(data).main_file == "z.tex"


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "hardlink", "device"])
def test_hostile_members_are_blocked(kind):
    with pytest.raises(DoigetError) as err:
        read_tex_source(hostile(kind))
    assert err.value.code is ErrorCode.BLOCKED


def test_gzip_bomb_stops_at_the_cap():
    bomb = gzip.compress(b"\0" * (8 * 1024 * 1024))
    assert len(bomb) < 20_000
    with pytest.raises(DoigetError) as err:
        read_tex_source(bomb, max_total_bytes=1024 * 1024)
    assert err.value.code is ErrorCode.TOO_LARGE


def test_file_count_and_size_caps():
    many = tarball({f"f{i}.tex": b"x" for i in range(6)})
    with pytest.raises(DoigetError) as err:
        read_tex_source(many, max_files=5)
    assert err.value.code is ErrorCode.TOO_LARGE
    big = tarball({"main.tex": b"\\documentclass{article}" + b" " * 5000}, compress=False)
    with pytest.raises(DoigetError) as err:
        read_tex_source(big, max_total_bytes=4000)
    assert err.value.code is ErrorCode.TOO_LARGE


def test_not_latex_at_all():
    for data, code in ((b"%PDF-1.5 ...", ErrorCode.INVALID_INPUT),
                       (tarball({"readme.txt": b"no tex"}), ErrorCode.INVALID_INPUT),
                       (b"\x1f\x8b\x08\x00garbage", ErrorCode.INVALID_INPUT),
                       (gzip.compress(MAIN.encode())[:-30], ErrorCode.INVALID_INPUT)):
        with pytest.raises(DoigetError) as err:
            read_tex_source(data)
        assert err.value.code is code


def test_input_cycles_and_missing_inputs_are_harmless():
    data = tarball({"main.tex": b"\\documentclass{article}\\begin{document}A \\input{b} \\input{missing}"
                                b"\\end{document}",
                    "b.tex": b"B \\input{main}"})
    assert extract_tex(data).text == "A B"
