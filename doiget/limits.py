"""The one table of limits: the façade checks its arguments against these values and the MCP tool
schemas declare the same numbers, so a call never passes one layer and fails the other."""
from __future__ import annotations

MIB = 1024 * 1024

MAX_NAME = 100  # a tag or collection name, in characters
MAX_ANNOTATION = 100_000  # an entry's free-form annotation, in characters
MAX_RECENT = 1000  # entries one recent() call lists
MAX_SEARCH_HITS = 100  # hits one MCP search page holds
MAX_SEARCH_WINDOW = 1000  # hits one search() or search_text() call returns (MCP pages through them)
MAX_YEAR = 3000
MAX_OFFSET = 2**53  # a character offset into a text (JSON's largest exact integer)
MAX_TEXT_CHARS = 100_000  # characters one text() or tex_source() call returns
MAX_PDF_PAGE = 10**6
MAX_PDF_BYTES = 200 * MIB  # a PDF handed to add_pdf (as a path, as bytes or, over MCP, base64)
MAX_TEX_BYTES = 50 * MIB  # an arXiv e-print archive (also its unpacked total)
MAX_TEX_FILES = 2000  # files in an arXiv e-print archive
MAX_LISTED_FILES = 200  # files of a LaTeX source listed by tex_source()
MAX_SQL_ROWS = 10_000  # rows one sql() call returns
MAX_GRAPH_SEEDS = 500  # seed papers of one graph query
MAX_RELATED = 1000  # papers one related() call ranks
MAX_REVIEW_ITEMS = 100  # items per literature_review() section
MAX_PATHS = 20  # paths one connect() call returns
MAX_CITATIONS = 50  # citation strings one resolve_citations() call takes
MAX_CITATION_CANDIDATES = 20  # candidates per citation string
MAX_NOTE_HITS = 100  # notes one note_search() call returns
MAX_NOTE_OFFSET = 1_000_000
MAX_NOTE_ID = 2**62
MAX_PER_PAGE = 200  # OpenAlex results one paper_search() page holds
MAX_PAPER_QUERY = 1000  # characters of a paper_search() query
MAX_PAPER_FILTERS = 20  # OpenAlex filters one paper_search() call takes
MAX_PAPER_CURSOR = 2000  # characters of a paper_search() cursor
MAX_BATCH = 100  # identifiers one batch_fetch() call takes
MAX_EXPANSION_NODES = 500  # papers one graph expansion reaches
MAX_EXPANSION_REQUESTS = 100  # OpenAlex requests one graph expansion sends
MAX_CITATION = 2_000  # characters of one citation string
MAX_NOTE_BODY = 100_000  # characters of a note
MAX_QUOTE = 2_000  # characters of a note anchor's quote
MAX_SQL_CHARS = 20_000_000  # characters of values across the rows one sql() call returns
