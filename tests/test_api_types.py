"""The public Python API is typed: every ``Library`` method names what it returns (pydantic result
models from ``doiget.results``, ``Entry`` and hits from ``doiget.models``), never a bare ``dict[str,
Any]``; and a typed result prints, through ``present.to_json`` (the adapters' one dumping path), the
same JSON as the service's own answer it was built from."""
from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pydantic
import pytest

from doiget import Library, results
from doiget.present import to_json
from doiget.services import admin, bibliography, citations, fetching, graph, notes, organise, reading, references

# Methods whose result stays untyped, and why. Keep this list short and true.
UNTYPED = {
    # CSL-JSON items are an external schema (any CSL variable may appear); BibTeX and RIS are text.
    "export": "str | list[dict[str, Any]]",
    # Datasette's own metadata document, written to a file for Datasette to read.
    "datasette_metadata": "dict[str, Any]",
}


def public_methods() -> dict[str, typing.Any]:
    return {name: member for name, member in inspect.getmembers(Library, callable) if not name.startswith("_")}


def mentions_any(hint: typing.Any) -> bool:
    return hint is typing.Any or any(mentions_any(arg) for arg in typing.get_args(hint))


def test_no_public_method_returns_an_untyped_dict():
    untyped = {}
    for name, method in public_methods().items():
        hint = typing.get_type_hints(method)["return"]
        if mentions_any(hint) or hint is dict:
            untyped[name] = str(hint).replace("typing.", "")
    assert untyped == UNTYPED


def test_every_result_model_is_frozen_and_closed():
    models = [m for m in vars(results).values()
              if isinstance(m, type) and issubclass(m, results.Result) and m is not results.Result]
    assert len(models) > 30
    for model in models:
        assert model.model_config["frozen"] and model.model_config["extra"] == "forbid", model.__name__


@pytest.fixture(scope="module")
def lib(demo_library):
    return demo_library


def test_typed_results_print_what_the_services_answer(lib):
    """Façade result → to_json equals the service's dict → to_json, key for key (null fields and absent
    fields stay as they were), for the results the demo library can produce offline."""
    ref, other = "arxiv:1202.4527", "doi:10.1111/bjhp.12807"
    note = lib.note_create("typed note", ref, [{"page": 1, "quote": "test"}], ["idea"])
    pairs = [
        (lib.health(), admin.health(lib)),
        (lib.tags(), organise.tags(lib)),
        (lib.collections(), organise.collections(lib)),
        (lib.text(ref, page=2), reading.text(lib, ref, page=2)),
        (lib.related([ref], "influence", limit=3), graph.related_to(lib, [ref], "influence", 3)),
        (lib.connect(ref, other), graph.paths_between(lib, ref, other)),
        (lib.literature_review([ref], limit=3), graph.review(lib, [ref], limit=3)),
        (lib.graph_export("json"), graph.graph_export(lib, "json")),
        (lib.fetch(ref, dry_run=True), fetching.fetch_entry(lib, ref, dry_run=True)),
        (lib.batch_fetch([ref, "nonsense", ref], dry_run=True),
         fetching.batch_fetch(lib, [ref, "nonsense", ref], dry_run=True)),
        (lib.resolve_citation("Study Paper on Test Case generation"),
         citations.resolve_citation(lib, "Study Paper on Test Case generation")),
        (lib.resolve_citations(["x", "GUI testing"]), citations.resolve_citations(lib, ["x", "GUI testing"])),
        (lib.cite([ref, other], "vancouver"), references.cite(lib, [ref, other], "vancouver", "text")),
        (lib.dedupe(), bibliography.dedupe(lib)),
        (lib.note_read(note.id), notes.note_read(lib, note.id)),
        (lib.note_search("typed"), notes.note_search(lib, "typed")),
        (lib.gc(dry_run=True), admin.gc(lib, dry_run=True)),
    ]
    for typed, plain in pairs:
        assert not isinstance(typed, dict)
        assert to_json(typed) == to_json(plain), type(typed).__name__
    # writes: compare against the keys the service is documented to return
    imported = lib.import_bibliography("@article{k1, title={A typed import}, year={2001}, doi={10.5555/typed}}\n"
                                       "@article{k2, title={No id here}}\n", "bibtex")
    assert isinstance(imported, results.ImportReport) and imported.added == 2
    rows = to_json(imported)["report"]
    assert rows[0]["ref"] == "doi:10.5555/typed" and "conflicts" not in rows[0] and "ref" not in rows[1]
    assert imported.report[1].conflicts == [] and imported.report[1].ref is None


def test_results_read_as_attributes_and_stay_immutable(lib):
    health = lib.health()
    entries = lib.sql("SELECT count(*) FROM entries").rows[0][0]
    assert health.exists and health.counts["entries"] == entries >= 13 and health.status == "ok"
    with pytest.raises(pydantic.ValidationError):
        health.status = "error"
    page = lib.text("arxiv:1202.4527")
    assert page.format == "pdf" and page.text.startswith("#") and page.total_chars >= len(page.text)
    paths = lib.connect("arxiv:1202.4527", "doi:10.1111/bjhp.12807")
    assert to_json(paths)["from"] == to_json(paths.from_)  # "from" is a keyword: from_ in Python
    assert "\n" not in repr(paths) and len(repr(paths)) <= 160
    plan = lib.fetch("arxiv:1202.4527", dry_run=True)
    assert isinstance(plan, results.FetchPlan) and plan.entry is not None and plan.entry.ref_label == "arxiv:1202.4527"
    assert to_json(plan)["entry"]["ref"] == "arxiv:1202.4527"  # a stored entry prints with its ref


def test_the_package_ships_its_type_information():
    import doiget

    assert (Path(doiget.__file__).parent / "py.typed").is_file()
