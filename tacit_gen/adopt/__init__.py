"""Adopt what a team already has: dbt properties and ODCS v3 documents in, ODCS v3 out."""
