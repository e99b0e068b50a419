"""`tacit-gen docs` and `verify --format html`: static HTML pages, no external assets, every text
escaped, the same bytes for the same inputs (docs/catalog.md)."""
