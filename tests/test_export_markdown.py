from __future__ import annotations

import yaml

from doiget.formats.markdown import note_to_markdown

NOTE = {
    "id": 42,
    "entry": "doi:10.1073/pnas.1414271111",
    "entry_title": "Developing functional musculoskeletal tissues: hypoxia & LOX",
    "tags": ["to-read", "cartilage: collagen"],
    "author": "agent",
    "anchors": [{"page": 3, "quote": "hypoxia\ninduced"}, {"chunk": 17}],
    "created_at": "2024-05-01T10:00:00Z",
    "updated_at": "2024-05-02T11:30:00Z",
    "body": "# Summary\n\nHypoxia raises cross-linking.\n\n---\n\nMore.\n",
}


def _split(markdown: str) -> tuple[dict, str]:
    assert markdown.startswith("---\n")
    front, body = markdown[4:].split("\n---\n", 1)
    return yaml.safe_load(front), body


def test_front_matter_parses_back_and_body_follows():
    front, body = _split(note_to_markdown(NOTE))
    assert front == {k: v for k, v in NOTE.items() if k != "body"}
    assert list(front) == ["id", "entry", "entry_title", "tags", "author", "anchors", "created_at", "updated_at"]
    assert body == "\n" + NOTE["body"]


def test_hostile_values_cannot_inject_keys_or_end_the_front_matter():
    hostile = {
        "id": 1,
        "entry_title": "x\n---\nevil: true\n# comment",
        "author": "a: b # c\u2028d\u0085e\ufefff'\"\\",
        "tags": ["- item", "!!python/object:os.system", "{flow}", "*alias", "&anchor", "\U000e0001"],
        "body": "text",
    }
    markdown = note_to_markdown(hostile)
    front, body = _split(markdown)
    assert front == {k: v for k, v in hostile.items() if k != "body"}
    assert body == "\ntext\n"
    assert markdown.count("\n---\n") == 1 and len(markdown.splitlines()) == 8


def test_missing_fields_are_left_out_and_empty_body_is_fine():
    assert note_to_markdown({"id": 7}) == "---\nid: 7\n---\n\n"
