"""citeloop's trajectory format: event models, run files, the JSON Schema. Imports nothing of ours."""
