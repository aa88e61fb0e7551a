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


def changes(before: Work, after: Work) -> dict[str, tuple[object, object]]:
    a, b = flat(before), flat(after)
    return {name: (a.get(name), b.get(name)) for name in a.keys() | b.keys() if a.get(name) != b.get(name)
            and a.get(name) not in (None, "", [], {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(_EXPORTS), action="append")
    parser.add_argument("--show", help="print the changed values of this field")
    parser.add_argument("--cdl", action="store_true", help="also the 6,315 entries of cdl.bib.gz")
    args = parser.parse_args()
    paths = SMALL_FILES + ([CDL] if args.cdl else [])
    works = [(path.name, r.work) for path in paths for r in parse_bibliography(read(path)) if r.work.title or r.work.ids()]
    for fmt in args.format or sorted(_EXPORTS):
        text = _EXPORTS[fmt]([w for _, w in works])
        again = [r.work for r in parse_bibliography(text, fmt)]
        assert len(again) == len(works), (fmt, len(again), len(works))
        fields: Counter[str] = Counter()
        silent: Counter[str] = Counter()
        changed = changed_silently = 0
        for (name, work), back in zip(works, again):
            diff = changes(work, back)
            changed += bool(diff)
            fields.update(diff.keys())
            unsaid = diff.keys() - reported(work, fmt) - FORM
            changed_silently += bool(unsaid)
            silent.update(unsaid)
            if args.show and args.show in diff:
                print(f"  {name} {work.citekey}: {diff[args.show][0]!r} -> {diff[args.show][1]!r}")
        print(f"{fmt}: {changed} of {len(works)} records changed; fields: "
              + ", ".join(f"{k} {v}" for k, v in fields.most_common()))
        print(f"  of which neither a change of form nor named by the export's warning: {changed_silently} records; "
              "fields: " + ", ".join(f"{k} {v}" for k, v in silent.most_common()))


if __name__ == "__main__":
    main()
