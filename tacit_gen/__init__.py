"""tacit-gen: one data contract, rendered into every tool that enforces it."""

import time as _time

__version__ = "0.1.0"
# When this process first imported tacit-gen: the render cache stores nothing when a file of the
# package changed less than two seconds before (tacit_gen.rendercache).
STARTED = _time.time()
