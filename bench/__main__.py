"""``python -m kiln.bench``: run the benchmark suite (see bench/run.py)."""

import sys

from kiln.bench.run import main

sys.exit(main())
