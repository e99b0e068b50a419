"""What a clause means, row by row: the reference evaluator and the catalog model it reads."""

from tacit_gen.semantics.catalog import CatalogData, CatalogSpec, catalog_spec
from tacit_gen.semantics.evaluate import and3, compare3, evaluate, not3, or3

__all__ = ["CatalogData", "CatalogSpec", "and3", "catalog_spec", "compare3", "evaluate", "not3", "or3"]
