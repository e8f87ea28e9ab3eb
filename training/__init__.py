"""citeloop training layer (see DESIGN.md)."""
