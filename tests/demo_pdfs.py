"""The demo's generated PDFs, made once per test process instead of once per ``load_demo`` call.

``doiget.demo.paper_pdf`` is deterministic (fixed dates, no new document id), so remembering its bytes
per work changes nothing a test sees; it saves ~0.6 s of PyMuPDF drawing each time a test loads the
demo, in-process (conftest) and in every ``doiget demo`` the CLI fork server runs."""
from __future__ import annotations


def remember_demo_pdfs() -> None:
    import doiget.demo as demo

    draw = demo.paper_pdf
    made: dict[str, bytes] = {}

    def paper_pdf(work):
        key = work.model_dump_json()
        if key not in made:
            made[key] = draw(work)
        return made[key]

    demo.paper_pdf = paper_pdf
    for work in demo.demo_works():
        paper_pdf(work)
