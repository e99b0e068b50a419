"""One package per target (`dbt/`, `soda/`, `gx/`, `pandera/`, `ibis/`), plus what they share:
`base.py` (the Target protocol), `header.py`, `templates.py`.

The registry is `tacit_gen.registry` (the contract loader reads it, so it sits below every
layer); `from tacit_gen.targets import registry` keeps working.
"""

from tacit_gen import registry

__all__ = ["registry"]
