"""citeloop's top layer: benchmarks, comparisons, and the `citeloop` command line."""
