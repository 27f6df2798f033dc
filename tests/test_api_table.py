"""The supported-API table in docs/numpy-semantics.md is the one the dispatch tables make."""

from __future__ import annotations

from kiln.frontend import api_table


def test_doc_table_matches_dispatch_tables() -> None:
    text = api_table.DOC.read_text()
    assert api_table.in_doc(text) == api_table.markdown(), (
        "docs/numpy-semantics.md's API table is out of date: run `python -m kiln.frontend.api_table --write`"
    )


def test_table_lists_what_users_reach_for() -> None:
    table = api_table.markdown()
    for name in ("`np.add`", "`np.copyto`", "`np.zeros`", "`x.copy`", "`x.T`", "`np.where`"):
        assert name in table
