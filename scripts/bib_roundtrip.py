"""Round-trip fidelity over the bibliography corpus (tests/fixtures/bib and upstream/bibtex).

Every record of every fixture (cdl.bib.gz only with ``--cdl``) is imported, exported as BibTeX, CSL-JSON and RIS, and read back; a field
counts as changed when the record read back differs from the record imported (names compared part by part,
``extra`` key by key, ``extra["bibtex"]``/``extra["ris"]`` field by field). Prints, per export format, the
records with a change and the changed fields by name, and of them those neither a change of form nor named by the
export's ``not_carried``; ``--show FIELD`` prints the changed values of one.

    python scripts/bib_roundtrip.py [--format ris] [--show authors] [--cdl]
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from corpus import CDL, SMALL_FILES, read  # noqa: E402

from doiget.formats.bibtex import to_bibtex  # noqa: E402
from doiget.formats.csl import to_csl_json  # noqa: E402
from doiget.formats.fields import CSL_ALSO_SPELT  # noqa: E402
from doiget.formats.importer import parse_bibliography  # noqa: E402
from doiget.formats.ris import to_ris  # noqa: E402
from doiget.models import Work  # noqa: E402

_EXPORTS = {"bibtex": lambda works: to_bibtex(works), "csl-json": lambda works: json.dumps(to_csl_json(works)),
            "ris": lambda works: to_ris(works)}
_FIELDS = ("title", "abstract", "year", "published", "type", "venue", "publisher", "volume", "issue", "pages",
           "url", "language", "doi", "arxiv", "pmid", "pmcid")


def flat(work: Work) -> dict[str, object]:
    """The values a round trip must keep, one per comparable field."""
    out: dict[str, object] = {name: getattr(work, name) for name in _FIELDS}
    out["authors"] = [a.model_dump(exclude_none=True) for a in work.authors]
    for role, people in work.contributors.items():
        out[f"contributors.{role}"] = [a.model_dump(exclude_none=True) for a in people]
    for name, value in work.extra.items():
        if name in ("bibtex", "ris") and isinstance(value, dict):
            out.update({f"{name}.{key}": item for key, item in value.items()})
        else:
            out[f"extra.{CSL_SPELLING.get(name, name)}"] = value
    return out


# Zotero 4's spellings of two CSL variables, written back under the CSL name by the RIS export.
CSL_SPELLING = {zotero: csl for csl, zotero in CSL_ALSO_SPELT.items()}
# How one format spells what another says otherwise, not data of its own: a title as a .bib wrote it, a CSL
# title's markup, the type or field name a record had in its format; a .bib `file` comes back as RIS's L1.
FORM = {"bibtex.title", "bibtex.subtitle", "extra.bibtex-fields", "extra.bibtex-type", "extra.ris-type",
        "extra.title-rich", "extra.container-title-rich", "bibtex.file"}


def reported(work: Work, fmt: str) -> set[str]:
    """The fields of ``work`` the export as ``fmt`` says it leaves out (``not_carried`` of
    :mod:`doiget.formats.ris` or :mod:`doiget.formats.bibtex`), as :func:`flat` names them."""
    module = {"ris": "doiget.formats.ris", "bibtex": "doiget.formats.bibtex"}.get(fmt)
    not_carried = getattr(importlib.import_module(module), "not_carried", None) if module else None
    if not_carried is None:  # code from before it
        return set()
    names = set()
    for name in not_carried(work):
        if name.startswith("BibTeX field "):
            names.add("bibtex." + name.removeprefix("BibTeX field "))
        elif name.endswith(" name parts"):
            role = name.removesuffix(" name parts")
            names.add("authors" if role == "author" else f"contributors.{role}")
        elif name.endswith(" names"):
            names.add("contributors." + name.removesuffix(" names"))
        elif name in ("type", "abstract line breaks"):
            names.add(name.split()[0])
        else:
            names.add("extra." + name)
    return names


def form_only(before: object, after: object) -> bool:
    """Whether two values differ only in form: runs of white space within a line (which every reader but
    CSL-JSON's reads as one space, BibTeX's as TeX does) or a number against its digits (CSL's ``edition``)."""
    def spelt(value: object) -> object:
        return " ".join(str(value).split()) if isinstance(value, (str, int)) else value
    return spelt(before) == spelt(after)


_EMPTY = (None, "", [], {}, {"date-parts": []})  # nothing to keep: a CSL date without parts included


def changes(before: Work, after: Work) -> dict[str, tuple[object, object]]:
    a, b = flat(before), flat(after)
    return {name: (a.get(name), b.get(name)) for name in a.keys() | b.keys() if a.get(name) != b.get(name)
            and a.get(name) not in _EMPTY}


class Trip(NamedTuple):
    """One record's round trip: what changed (field -> before, after) and, of it, what nothing explains."""
    source: str
    work: Work
    changed: dict[str, tuple[object, object]]
    unexplained: set[str]


def corpus(with_cdl: bool = False) -> list[tuple[str, Work]]:
    """(file name, work) of every record of the fixtures with a title or an identifier."""
    paths = SMALL_FILES + ([CDL] if with_cdl else [])
    return [(path.name, r.work) for path in paths for r in parse_bibliography(read(path)) if r.work.title or r.work.ids()]


def round_trip(works: list[tuple[str, Work]], fmt: str) -> list[Trip]:
    """Each of ``works`` exported as ``fmt`` and read back."""
    again = [r.work for r in parse_bibliography(_EXPORTS[fmt]([w for _, w in works]), fmt)]
    assert len(again) == len(works), (fmt, len(again), len(works))
    trips = []
    for (source, work), back in zip(works, again):
        diff = changes(work, back)
        unsaid = {field for field, (a, b) in diff.items() if not form_only(a, b)} - reported(work, fmt) - FORM
        trips.append(Trip(source, work, diff, unsaid))
    return trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(_EXPORTS), action="append")
    parser.add_argument("--show", help="print the changed values of this field")
    parser.add_argument("--cdl", action="store_true", help="also the 6,315 entries of cdl.bib.gz")
    args = parser.parse_args()
    works = corpus(args.cdl)
    for fmt in args.format or sorted(_EXPORTS):
        trips = round_trip(works, fmt)
        fields = Counter(field for trip in trips for field in trip.changed)
        silent = Counter(field for trip in trips for field in trip.unexplained)
        if args.show:
            for trip in trips:
                if args.show in trip.changed:
                    before, after = trip.changed[args.show]
                    print(f"  {trip.source} {trip.work.citekey}: {before!r} -> {after!r}")
        print(f"{fmt}: {sum(bool(t.changed) for t in trips)} of {len(works)} records changed; fields: "
              + ", ".join(f"{k} {v}" for k, v in fields.most_common()))
        print("  of which neither a change of form nor named by the export's warning: "
              f"{sum(bool(t.unexplained) for t in trips)} records; "
              "fields: " + ", ".join(f"{k} {v}" for k, v in silent.most_common()))


if __name__ == "__main__":
    main()
