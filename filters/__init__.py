"""citeloop filters layer (see DESIGN.md)."""
